import type { Core } from '../../app/core.js';
import type { KeyName, SettingsView, settingsChannels, TeamSslMode } from '../contract/settings.js';
import type { HandlersFor } from './types.js';
import { AppError } from '../../app/errors.js';
import {
  readSettings,
  listenAddressNeedingConfirm,
  importServicePublicKey,
  currentServicePublicKey,
  forgetKeysIfOriginChanged,
  operatorNameChanges,
  originOf,
  storeKeyFor,
  readTeamCaFile,
  teamCaInfo,
  teamTlsOf,
  type Settings,
  type SettingsPatch,
} from '../../settings/index.js';
import { transportOf, type SslMode } from '../../team/tls.js';
import { secretStatus, type SecretName } from '../../secrets/index.js';
import { saveSettingsChange, type SwitchProfileDeps } from '../../operations/switch-profile.js';

/** What these handlers call on the desk: named, not the whole Core (a profile switch: operations/switch-profile.ts). */
export type SettingsDeps = Pick<
  Core,
  | 'appStatus'
  | 'callbackReceiverUrl'
  | 'chooseOpenPath'
  | 'clock'
  | 'confirm'
  | 'dataDir'
  | 'db'
  | 'embedded'
  | 'events'
  | 'logger'
  | 'poller'
  | 'reconnect'
  | 'secrets'
  | 'settings'
> &
  SwitchProfileDeps;

const SECRET: Record<KeyName, SecretName> = {
  publicKey: 'public-key',
  secretKey: 'secret-key',
  signingKey: 'signing-key',
};

async function settingsView(core: SettingsDeps): Promise<SettingsView> {
  const { settings: s, problems } = readSettings(core.db);
  const store = core.secrets();
  const keys = await secretStatus(store);
  const embedded = s.profile === 'embedded' ? core.embedded() : null;
  const boundTo = keys.available ? await store.origin().catch(() => null) : null;
  const origin = !embedded && s.baseUrl ? originOf(s.baseUrl) : null;
  const enterFor =
    origin &&
    s.profile !== 'embedded' &&
    ((boundTo !== null && boundTo !== origin) || keys.publicKey === 'unset' || keys.secretKey === 'unset')
      ? origin
      : null;
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
    idleLockMinutes: s.idleLockMinutes,
    operatorNameChanges: operatorNameChanges(core.db).map((c) => ({ ...c, at: new Date(c.at).toISOString() })),
    keys: {
      publicKey: keys.publicKey,
      secretKey: keys.secretKey,
      signingKey: keys.signingKey,
      maskedPublicKey: keys.maskedPublicKey,
      store: keys.store,
      available: keys.available,
      reason: keys.reason ?? null,
      boundTo,
      enterFor,
    },
    serviceKey: key
      ? { bits: key.bits, fingerprintSha256: key.fingerprintSha256, source: embedded ? 'embedded sandbox' : 'imported' }
      : null,
    teamDatabaseUrl: s.teamDatabaseUrl,
    teamLogin: s.teamLogin,
    teamSslMode: s.teamSslMode,
    teamSslCa: s.teamSslCa ? teamCaInfo(s.teamSslCa) : null,
    teamTransport: transportView(s),
    teamCaDialog: Boolean(core.chooseOpenPath),
    problems,
  };
}

/** The contract's list of modes is the team's (the window cannot load team/tls.ts). */
const sameModes: [TeamSslMode, SslMode] extends [SslMode, TeamSslMode] ? true : never = true;
void sameModes;

function transportView(s: Settings): SettingsView['teamTransport'] {
  if (s.profile !== 'team' || !s.teamDatabaseUrl) return null;
  try {
    const t = transportOf(s.teamDatabaseUrl, teamTlsOf(s));
    return { mode: t.mode, warning: t.warning };
  } catch {
    return null;
  }
}

function refuseOnEmbedded(core: SettingsDeps, what: string): void {
  if (core.settings().profile === 'embedded') {
    throw new AppError(
      'validation',
      `The embedded profile uses its local sandbox's ${what}; switch the profile to sandbox or live first.`,
      { field: 'profile' },
    );
  }
}

/** A receiver reachable from other machines only with the user's yes in the main process. */
async function confirmListenAddress(core: SettingsDeps, p: SettingsPatch): Promise<void> {
  const host = listenAddressNeedingConfirm(core.settings(), p);
  if (host === null) return;
  const ok = core.confirm
    ? await core.confirm({
        title: 'Callback receiver address',
        message: `Listen for callbacks on ${host}?`,
        detail:
          'Other machines on the network will be able to reach the callback receiver. Only signed callbacks are stored, but choose this only if the service cannot reach this computer otherwise.',
      })
    : false;
  if (!ok) {
    const why = core.confirm ? 'it was not confirmed' : 'this shell has no such dialog';
    throw new AppError(
      'confirm_required',
      `callbackReceiver.host: listening on ${host} (not loopback) must be confirmed in the app's own dialog; ${why}`,
      { field: 'callbackReceiver.host' },
    );
  }
}

/**
 * A team connection that stops protecting the network path (plain text, or an unchecked certificate, to
 * a host off this computer) only with the user's yes in the main process: the window alone must not
 * weaken it.
 */
async function confirmTeamTransport(core: SettingsDeps, p: SettingsPatch): Promise<void> {
  if (p.teamSslMode === undefined && p.teamDatabaseUrl === undefined) return;
  const was = core.settings();
  const next = { ...was, ...p } as Settings;
  if (!next.teamDatabaseUrl) return;
  let warning: string | null;
  try {
    warning = transportOf(next.teamDatabaseUrl, teamTlsOf(next)).warning;
  } catch {
    return; // an invalid URL is refused by the settings' own check, with its field
  }
  const before = transportView(was);
  if (warning === null || (before?.warning === warning && was.profile === 'team')) return;
  const ok = core.confirm
    ? await core.confirm({
        title: 'Team database connection',
        message: 'Connect to the team database without full protection?',
        detail: `With this setting ${warning}. Choose it only on a network you trust.`,
      })
    : false;
  if (!ok) {
    const why = core.confirm ? 'it was not confirmed' : 'this shell has no such dialog (use merchant-desk connect)';
    throw new AppError(
      'confirm_required',
      `teamSslMode: ${warning}; this must be confirmed in the app's own dialog, and ${why}`,
      {
        field: 'teamSslMode',
      },
    );
  }
}

export const settingsHandlers = (core: SettingsDeps): HandlersFor<typeof settingsChannels> => {
  const changed = async () => {
    await core.reconnect();
    core.events.emit('settings.changed', { profile: core.settings().profile });
    core.events.emit('status.changed', core.appStatus());
    void core.poller?.refresh().catch(() => {});
    return settingsView(core);
  };
  return {
    'settings.get': () => settingsView(core),
    'settings.update': async (patch) => {
      const p = patch as SettingsPatch;
      await confirmListenAddress(core, p);
      await confirmTeamTransport(core, p);
      const { was, next, switched } = await saveSettingsChange(core, p);
      // A new host gets no keys of the old one: they are asked for again, for the new host.
      if (!switched && next.profile !== 'embedded') {
        const before = was.baseUrl;
        if (await forgetKeysIfOriginChanged(core.secrets(), before, next.baseUrl)) {
          core.logger.info(
            { from: before && originOf(before), to: next.baseUrl && originOf(next.baseUrl) },
            'base URL moved to another host; its keys were forgotten',
          );
          core.events.emit('notice', {
            level: 'warning',
            message: `The base URL now points at ${next.baseUrl ? originOf(next.baseUrl) : 'no host'}: enter the keys for it in Settings (keys are only sent to the host they were entered for).`,
          });
        }
      }
      return changed();
    },
    'settings.setKey': async ({ name, value }) => {
      refuseOnEmbedded(core, 'keys');
      const baseUrl = core.settings().baseUrl;
      if (!baseUrl)
        throw new AppError('validation', 'Set the base URL first: keys are saved for the host they are used with.', {
          field: 'baseUrl',
        });
      await storeKeyFor(core.secrets(), baseUrl, SECRET[name], value);
      return changed();
    },
    'settings.clearKey': async ({ name }) => {
      refuseOnEmbedded(core, 'keys');
      await core.secrets().delete(SECRET[name]);
      return changed();
    },
    'settings.setTeamCa': async ({ pem, clear }) => {
      if (core.settings().profile !== 'team')
        throw new AppError('validation', 'The CA certificate is for the team profile: switch to it first.', {
          field: 'profile',
        });
      let text: string | null = null;
      if (!clear) {
        // Whom the desk trusts is chosen in main's dialog where there is one; the window's text only
        // where there is none (the Chromium shell), as for the service key.
        if (pem !== undefined && core.chooseOpenPath)
          throw new AppError('validation', 'teamSslCa: choose the CA certificate in the dialog', {
            field: 'teamSslCa',
          });
        if (pem !== undefined) text = pem;
        else {
          if (!core.chooseOpenPath)
            throw new AppError('validation', 'teamSslCa: choose the CA certificate file in the form', {
              field: 'teamSslCa',
            });
          const file = await core.chooseOpenPath({
            title: "The team database's CA certificate",
            filters: [{ name: 'PEM certificate', extensions: ['pem', 'crt', 'cer'] }],
          });
          if (file === null) return settingsView(core);
          text = readTeamCaFile(file);
        }
      }
      await saveSettingsChange(
        core,
        { teamSslCa: text },
        `The team database's CA certificate ${text === null ? 'was removed' : 'changed'}`,
      );
      return changed();
    },
    'settings.importServiceKey': async ({ pem }) => {
      refuseOnEmbedded(core, 'service public key');
      importServicePublicKey(core.db, core.dataDir, pem, core.clock);
      return changed();
    },
  };
};
