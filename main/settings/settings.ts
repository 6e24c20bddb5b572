// Settings that are not secrets, one row per top-level name in the settings table (value is JSON).
// Validated with zod on the way in and on the way out; a stored value that no longer validates falls
// back to its default and is reported, so one bad row never stops the app or loses the others.
import { english, isMessageId, nest, words, type Words } from '../words/words.shared.js';
import type { ReadDb, WriteDb } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { putSetting, settingRows } from '../store/sqlite/settings.js';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { recordOperatorNameChange } from './audit.js';
import { isLoopbackHost } from '../service/loopback.js';
import { DeskError } from '../errors.shared.js';
import { tlsSettingsProblem } from '../team/database-url.js';
import { readJson, SETTING_VALUE_LIMITS } from './json-limits.js';
import {
  defaultSettings,
  settingSchemas,
  type SettingName,
  type Settings,
  type SettingsPatch,
} from './setting-schemas.js';

// The schemas, types and defaults are setting-schemas.ts; imported from here as before.
export * from './setting-schemas.js';

/** A setting that is not valid. `field` is the setting's path, e.g. "callbackReceiver.port". */
export class SettingsError extends DeskError {
  declare readonly kind: 'validation';
  declare readonly field: string;
  declare readonly fields: Record<string, string>;
  /** The first field's problem, in English. */
  readonly reason: string;
  constructor(field: string, reason: string | Words, fields?: Record<string, string | Words>) {
    const w = typeof reason === 'string' ? words('settings.err.other', { text: reason }) : reason;
    const all = fields ?? { [field]: w };
    const fieldWords = Object.fromEntries(
      Object.entries(all).map(([k, v]) => [k, typeof v === 'string' ? words('settings.err.other', { text: v }) : v]),
    );
    const text = english(w);
    const id = /^[A-Z]/.test(text) ? 'settings.err.fieldColon' : 'settings.err.field';
    super('validation', words(id, { field, ...nest('reason', w, text) }), {
      field,
      fieldWords,
      expose: true,
    });
    this.reason = text;
  }
}

/** A schema's message as words: the settings' schemas give catalogue ids, with the bound the issue names. */
function issueWords(issue: { message: string; minimum?: unknown; maximum?: unknown } | undefined): Words {
  if (!issue) return words('settings.err.invalid');
  if (!isMessageId(issue.message)) return words('settings.err.other', { text: issue.message });
  const bound = (x: unknown) => (typeof x === 'number' || typeof x === 'bigint' ? String(x) : undefined);
  const min = bound(issue.minimum);
  const max = bound(issue.maximum);
  return words(issue.message, { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) });
}

export interface SettingsProblem {
  field: string;
  message: string;
}

/** Reads all settings; invalid or unreadable stored values fall back to defaults and are listed in `problems`. */
export function readSettings(db: ReadDb): { settings: Settings; problems: SettingsProblem[] } {
  const settings = defaultSettings();
  const problems: SettingsProblem[] = [];
  for (const row of settingRows(db)) {
    if (!Object.prototype.hasOwnProperty.call(settingSchemas, row.key)) continue; // another capability's key
    const name = row.key as SettingName;
    const read = readJson(row.value, SETTING_VALUE_LIMITS);
    if ('problem' in read) {
      const why =
        read.problem === 'it is not valid JSON' ? 'is not valid JSON' : read.problem.replace(/^the JSON /, '');
      problems.push({ field: name, message: `${name}: the stored value ${why}; using the default` });
      continue;
    }
    const r = settingSchemas[name].safeParse(read.value);
    if (!r.success) {
      const issue = r.error.issues[0];
      const field = [name, ...(issue?.path ?? []).map(String)].join('.');
      problems.push({ field, message: `${field} ${english(issueWords(issue))}; using the default` });
      continue;
    }
    (settings as Record<string, unknown>)[name] = r.data;
  }
  return { settings, problems };
}

export function loadSettings(db: ReadDb): Settings {
  return readSettings(db).settings;
}

/** Validates the whole result of applying `patch`; cross-field rules included. Throws SettingsError. */
export function validateSettings(candidate: Record<string, unknown>): Settings {
  const fields: Record<string, string | Words> = {};
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(settingSchemas) as SettingName[]) {
    const r = settingSchemas[name].safeParse(candidate[name]);
    if (!r.success) {
      for (const issue of r.error.issues) {
        const field = [name, ...issue.path.map(String)].join('.');
        fields[field] ??= issueWords(issue);
      }
    } else {
      out[name] = r.data;
    }
  }
  for (const key of Object.keys(candidate)) {
    if (!Object.prototype.hasOwnProperty.call(settingSchemas, key)) fields[key] = words('settings.err.notASetting');
  }
  const s = out as Settings;
  if (Object.keys(fields).length === 0) {
    if (s.profile === 'live' && s.baseUrl && new URL(s.baseUrl).protocol !== 'https:') {
      fields.baseUrl = words('settings.err.liveHttps');
    }
    if (s.profile !== 'embedded' && s.baseUrl === null) {
      fields.baseUrl = words('settings.err.baseUrlRequired', { profileId: `app.profile.${s.profile}` });
    }
    if (s.profile === 'team' && s.teamDatabaseUrl === null) {
      fields.teamDatabaseUrl = words('settings.err.teamDatabaseRequired');
    }
    if (s.profile === 'team' && s.teamLogin === null) {
      fields.teamLogin = words('settings.err.teamLoginRequired');
    }
    const tls = tlsSettingsProblem(s.teamSslMode, s.teamSslCa);
    if (s.profile === 'team' && tls) fields[tls.field === 'ca' ? 'teamSslCa' : 'teamSslMode'] = tls.message;
    if (!/^[A-Za-z0-9.:[\]-]+$/.test(s.callbackReceiver.host)) {
      fields['callbackReceiver.host'] = words('settings.err.host');
    }
  }
  const entries = Object.entries(fields);
  if (entries.length) {
    const [field, reason] = entries[0]!;
    throw new SettingsError(field, reason, fields);
  }
  return s;
}

/**
 * Applies a partial update (nested objects merged), validates the result as a whole, and writes the
 * changed settings in one transaction. Nothing is written when anything is invalid.
 */
export function updateSettings(db: WriteDb, patch: SettingsPatch, clock: Clock = systemClock): Settings {
  const current = loadSettings(db);
  const candidate: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const cur = (current as Record<string, unknown>)[key];
    candidate[key] =
      value !== null && typeof value === 'object' && !Array.isArray(value) && cur && typeof cur === 'object'
        ? { ...(cur as object), ...(value as object) }
        : value;
  }
  const next = validateSettings(candidate);
  const now = clock.now();
  writeTransaction(db, () => {
    for (const name of Object.keys(settingSchemas) as SettingName[]) {
      if (!(name in patch)) continue;
      putSetting(db, name, JSON.stringify(next[name]), now);
    }
    if ('operatorName' in patch) recordOperatorNameChange(db, current.operatorName, next.operatorName, now);
  });
  return next;
}

/**
 * The callback receiver's listen address when `patch` moves it off loopback (to an address other
 * machines can reach), else null. Such a change needs the user's confirmation in the main process
 * (Core.confirm): the renderer alone must not open the receiver to the network.
 */
export function listenAddressNeedingConfirm(current: Settings, patch: SettingsPatch): string | null {
  const host = patch.callbackReceiver?.host?.trim();
  if (host === undefined || isLoopbackHost(host)) return null;
  return host === current.callbackReceiver.host ? null : host;
}
