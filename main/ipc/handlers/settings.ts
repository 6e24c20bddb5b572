import type { Core } from '../../app/core.js';
import type { KeyName, SettingsView, settingsChannels } from '../contract/settings.js';
import type { HandlersFor } from './types.js';
import { AppError } from '../../app/errors.js';
import { readSettings, updateSettings, importServicePublicKey, currentServicePublicKey, type SettingsPatch } from '../../settings/index.js';
import { secretStatus, type SecretName } from '../../secrets/index.js';

const SECRET: Record<KeyName, SecretName> = { publicKey: 'public-key', secretKey: 'secret-key', signingKey: 'signing-key' };

export async function settingsView(core: Core): Promise<SettingsView> {
  const { settings: s, problems } = readSettings(core.db);
  const keys = await secretStatus(core.secrets());
  const embedded = s.profile === 'embedded' ? core.embedded() : null;
  const keyPath = embedded ? embedded.servicePublicKeyPath : s.servicePublicKeyPath;
  const key = currentServicePublicKey(keyPath);
  return {
    profile: s.profile,
    baseUrl: s.baseUrl,
    embeddedBaseUrl: embedded?.baseUrl ?? null,
    redirectUrl: s.redirectUrl,
    callbackReceiver: { ...s.callbackReceiver },
    callbackReceiverUrl: core.callbackReceiverUrl(),
    pollIntervals: { ...s.pollIntervals },
    staleAfterMs: s.staleAfterMs,
    operatorName: s.operatorName,
    keys: {
      publicKey: keys.publicKey,
      secretKey: keys.secretKey,
      signingKey: keys.signingKey,
      maskedPublicKey: keys.maskedPublicKey,
      store: keys.store,
      available: keys.available,
      reason: keys.reason ?? null,
    },
    serviceKey: key ? { bits: key.bits, fingerprintSha256: key.fingerprintSha256, source: embedded ? 'embedded sandbox' : 'imported' } : null,
    problems,
  };
}

function refuseOnEmbedded(core: Core, what: string): void {
  if (core.settings().profile === 'embedded') {
    throw new AppError(
      'validation',
      `The embedded profile uses its local sandbox's ${what}; switch the profile to sandbox or live first.`,
      { field: 'profile' },
    );
  }
}

export const settingsHandlers = (core: Core): HandlersFor<typeof settingsChannels> => {
  const changed = async () => {
    await core.reconnect();
    core.events.emit('settings.changed', { profile: core.settings().profile });
    core.events.emit('app.status', await core.appStatus());
    void core.poller?.refresh().catch(() => {});
    return settingsView(core);
  };
  return {
    'settings.get': () => settingsView(core),
    'settings.update': async (patch) => {
      const p = patch as SettingsPatch;
      const current = core.settings().profile;
      if (p.profile !== undefined && p.profile !== current) {
        // Another profile is another workspace (its own database and settings): the rest of the patch is
        // for it, except a base URL the form still shows from the old profile where it makes no sense.
        const { profile, ...rest } = p;
        if (profile === 'embedded' || rest.baseUrl === null) delete rest.baseUrl;
        await core.switchProfile(profile, rest);
      } else {
        updateSettings(core.db, p, core.clock);
      }
      return changed();
    },
    'settings.setKey': async ({ name, value }) => {
      refuseOnEmbedded(core, 'keys');
      await core.secrets().set(SECRET[name], value);
      return changed();
    },
    'settings.clearKey': async ({ name }) => {
      refuseOnEmbedded(core, 'keys');
      await core.secrets().delete(SECRET[name]);
      return changed();
    },
    'settings.importServiceKey': async ({ pem }) => {
      refuseOnEmbedded(core, 'service public key');
      importServicePublicKey(core.db, core.dataDir, pem, core.clock);
      return changed();
    },
  };
};
