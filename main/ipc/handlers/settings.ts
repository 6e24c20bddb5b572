import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
import { words } from '../../words/words.shared.js';
import type { KeyName, SettingsView, settingsChannels, TeamSslMode } from '../contract/settings.js';
import type { HandlersFor } from './types.js';
import { AppError } from '../../app/errors.js';
import {
  listenAddressNeedingConfirm,
  currentServicePublicKey,
  originOf,
  readTeamCaFile,
  teamCaInfo,
  teamTlsOf,
  type Settings,
  type SettingsPatch,
} from '../../settings/index.js';
import { transportOf, type SslMode } from '../../team/tls.js';
import type { SecretName } from '../../secrets/index.js';

/** What these handlers call on the desk (a profile switch: operations/switch-profile.ts). */
export type SettingsOperations = Pick<
  Operations,
  | 'confirmDialog'
  | 'deleteKey'
  | 'forgetKeysIfHostMoved'
  | 'importServicePublicKey'
  | 'openDialog'
  | 'saveSettings'
  | 'settingsChanged'
  | 'storeKey'
>;
export type SettingsQueries = Pick<
  Queries,
  'callbackReceiverUrl' | 'embedded' | 'keyStatus' | 'operatorNameChanges' | 'settings' | 'storedSettings'
>;

const SECRET: Record<KeyName, SecretName> = {
  publicKey: 'public-key',
  secretKey: 'secret-key',
  signingKey: 'signing-key',
};

async function settingsView(ops: SettingsOperations, q: SettingsQueries): Promise<SettingsView> {
  const { settings: s, problems } = q.storedSettings();
  const { boundTo, ...keys } = await q.keyStatus();
  const embedded = s.profile === 'embedded' ? q.embedded() : null;
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
    callbackReceiverUrl: q.callbackReceiverUrl(),
    pollIntervals: { ...s.pollIntervals },
    staleAfterMs: s.staleAfterMs,
    operatorName: s.operatorName,
    idleLockMinutes: s.idleLockMinutes,
    operatorNameChanges: q.operatorNameChanges().map((c) => ({ ...c, at: new Date(c.at).toISOString() })),
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
    teamCaDialog: Boolean(ops.openDialog()),
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
    return { mode: t.mode, warning: t.warning, warningWords: t.warningWords };
  } catch {
    return null;
  }
}

function refuseOnEmbedded(q: SettingsQueries, what: 'keys' | 'service public key'): void {
  if (q.settings().profile === 'embedded') {
    throw new AppError(
      'validation',
      words(what === 'keys' ? 'settings.err.embeddedKeys' : 'settings.err.embeddedServiceKey'),
      { field: 'profile' },
    );
  }
}

/** A receiver reachable from other machines only with the user's yes in the main process. */
async function confirmListenAddress(ops: SettingsOperations, q: SettingsQueries, p: SettingsPatch): Promise<void> {
  const host = listenAddressNeedingConfirm(q.settings(), p);
  if (host === null) return;
  const confirm = ops.confirmDialog();
  const ok = confirm
    ? await confirm({
        title: 'Callback receiver address',
        message: `Listen for callbacks on ${host}?`,
        detail:
          'Other machines on the network will be able to reach the callback receiver. Only signed callbacks are stored, but choose this only if the service cannot reach this computer otherwise.',
      })
    : false;
  if (!ok) {
    const why = confirm ? 'it was not confirmed' : 'this shell has no such dialog';
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
async function confirmTeamTransport(ops: SettingsOperations, q: SettingsQueries, p: SettingsPatch): Promise<void> {
  if (p.teamSslMode === undefined && p.teamDatabaseUrl === undefined) return;
  const was = q.settings();
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
  const confirm = ops.confirmDialog();
  const ok = confirm
    ? await confirm({
        title: 'Team database connection',
        message: 'Connect to the team database without full protection?',
        detail: `With this setting ${warning}. Choose it only on a network you trust.`,
      })
    : false;
  if (!ok) {
    const why = confirm ? 'it was not confirmed' : 'this shell has no such dialog (use merchant-desk connect)';
    throw new AppError(
      'confirm_required',
      `teamSslMode: ${warning}; this must be confirmed in the app's own dialog, and ${why}`,
      {
        field: 'teamSslMode',
      },
    );
  }
}

/**
 * Runs changes one after another, in the order they came. Each change awaits the keychain and the
 * reconnect, so two sent together would interleave: a key set just before the base URL moved to another
 * host was stored after that move had forgotten the keys (a CI run's settings failure), and stayed, unusable.
 */
function inTurn(): <T>(change: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (change) => {
    const p = tail.then(change);
    tail = p.catch(() => undefined);
    return p;
  };
}

export const settingsHandlers = (ops: SettingsOperations, q: SettingsQueries): HandlersFor<typeof settingsChannels> => {
  const changed = async () => {
    await ops.settingsChanged();
    return settingsView(ops, q);
  };
  const turn = inTurn();
  const changes = {
    'settings.update': async (patch) => {
      const p = patch as SettingsPatch;
      await confirmListenAddress(ops, q, p);
      await confirmTeamTransport(ops, q, p);
      const { was, next, switched } = await ops.saveSettings(p);
      if (!switched && next.profile !== 'embedded') await ops.forgetKeysIfHostMoved(was.baseUrl, next.baseUrl);
      return changed();
    },
    'settings.setKey': async ({ name, value }) => {
      refuseOnEmbedded(q, 'keys');
      const baseUrl = q.settings().baseUrl;
      if (!baseUrl) throw new AppError('validation', words('settings.err.baseUrlFirst'), { field: 'baseUrl' });
      await ops.storeKey(baseUrl, SECRET[name], value);
      return changed();
    },
    'settings.clearKey': async ({ name }) => {
      refuseOnEmbedded(q, 'keys');
      await ops.deleteKey(SECRET[name]);
      return changed();
    },
    'settings.setTeamCa': async ({ pem, clear }) => {
      if (q.settings().profile !== 'team')
        throw new AppError('validation', words('settings.err.caTeamOnly'), { field: 'profile' });
      let text: string | null = null;
      if (!clear) {
        // Whom the desk trusts is chosen in main's dialog where there is one; the window's text only
        // where there is none (the Chromium shell), as for the service key.
        const dialog = ops.openDialog();
        if (pem !== undefined && dialog)
          throw new AppError('validation', 'teamSslCa: choose the CA certificate in the dialog', {
            field: 'teamSslCa',
          });
        if (pem !== undefined) text = pem;
        else {
          if (!dialog)
            throw new AppError('validation', 'teamSslCa: choose the CA certificate file in the form', {
              field: 'teamSslCa',
            });
          const file = await dialog({
            title: "The team database's CA certificate",
            filters: [{ name: 'PEM certificate', extensions: ['pem', 'crt', 'cer'] }],
          });
          if (file === null) return settingsView(ops, q);
          text = readTeamCaFile(file);
        }
      }
      await ops.saveSettings(
        { teamSslCa: text },
        words(text === null ? 'app.notice.caRemoved' : 'app.notice.caChanged'),
      );
      return changed();
    },
    'settings.importServiceKey': async ({ pem }) => {
      refuseOnEmbedded(q, 'service public key');
      ops.importServicePublicKey(pem);
      return changed();
    },
  } satisfies Omit<HandlersFor<typeof settingsChannels>, 'settings.get'>;
  return {
    'settings.get': () => settingsView(ops, q),
    'settings.update': (r) => turn(() => changes['settings.update'](r)),
    'settings.setKey': (r) => turn(() => changes['settings.setKey'](r)),
    'settings.clearKey': (r) => turn(() => changes['settings.clearKey'](r)),
    'settings.setTeamCa': (r) => turn(() => changes['settings.setTeamCa'](r)),
    'settings.importServiceKey': (r) => turn(() => changes['settings.importServiceKey'](r)),
  };
};
