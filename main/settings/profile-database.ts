// Each profile has its own database under <dataDir>/profiles/<profile>/ (its settings, poll runs,
// snapshots, options cache, collections, events, reconciliation), so the embedded sandbox's test
// collections never mix with live ones. Which profile is active is recorded outside those databases, in
// <dataDir>/active-profile.json (written atomically; missing means embedded). The app (its workspace,
// main/app/workspace.ts, runs on one of these) and every CLI command open the active profile's database
// through here.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { checkpointWal, openDatabase, type Db } from '../store/sqlite/connection.js';
import { putSetting, settingValue } from '../store/sqlite/settings.js';
import { dataPaths } from './paths.js';
import { PROFILES, readSettings, type Profile } from './settings.js';
import { ACTIVE_PROFILE_LIMITS, readJsonFile } from './json-limits.js';
import { DeskError } from '../errors.shared.js';

/** The data folder or a profile's database cannot be used. Not exposed: the detail names local paths. */
export class ProfileDatabaseError extends DeskError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('profile_database', message, opts);
  }
}

/** Where a message about the data folder goes: the app's logger, or nothing. */
type Log = Pick<Logger, 'info' | 'warn'> | undefined;

/** The active profile recorded in active-profile.json; embedded when the file is missing. */
export function readActiveProfile(dataDir: string, logger?: Log): Profile {
  const file = dataPaths(dataDir).activeProfile;
  let read: ReturnType<typeof readJsonFile>;
  try {
    read = readJsonFile(file, ACTIVE_PROFILE_LIMITS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'embedded';
    throw new ProfileDatabaseError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const p =
    'value' in read && read.value && typeof read.value === 'object'
      ? (read.value as { profile?: unknown }).profile
      : null;
  if (typeof p === 'string' && (PROFILES as readonly string[]).includes(p)) return p as Profile;
  logger?.warn(
    { file },
    'active-profile.json does not name embedded, sandbox, live or team; using the embedded profile',
  );
  return 'embedded';
}

/** Records the active profile (write to a temporary file, then rename: never half written). */
export function writeActiveProfile(dataDir: string, profile: Profile): void {
  const file = dataPaths(dataDir).activeProfile;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ profile }) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export interface Adoption {
  profile: Profile;
  from: string;
  to: string;
}

/**
 * A data folder from before profiles had their own databases has one <dataDir>/merchant-desk.sqlite.
 * It becomes the database of the profile its settings name (one atomic rename, logged), and that
 * profile becomes the active one unless active-profile.json already says otherwise. Returns what was
 * adopted, or null when there was nothing to adopt.
 */
export function adoptLegacyDatabase(dataDir: string, logger?: Log): Adoption | null {
  const legacy = dataPaths(dataDir).legacyDb;
  if (!fs.existsSync(legacy)) return null;
  // Open it once (migrations as before) to learn its profile; closing the only connection checkpoints the WAL.
  const db = openDatabase(legacy);
  let profile: Profile;
  try {
    profile = readSettings(db).settings.profile;
    checkpointWal(db);
  } finally {
    db.close();
  }
  if (fs.statSync(`${legacy}-wal`, { throwIfNoEntry: false })?.size) {
    throw new ProfileDatabaseError(`${legacy} is in use by another Merchant Desk; close it and start again`);
  }
  const target = dataPaths(dataDir, profile);
  if (fs.existsSync(target.db)) {
    logger?.warn(
      { from: legacy, to: target.db },
      `the ${profile} profile already has a database; the older single-file database was left where it is`,
    );
    return null;
  }
  fs.mkdirSync(target.profileDir, { recursive: true, mode: 0o700 });
  try {
    fs.renameSync(legacy, target.db);
  } catch (e) {
    // Another process (the app and a CLI command at once) adopted it first.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && fs.existsSync(target.db)) return null;
    throw e;
  }
  for (const suffix of ['-wal', '-shm']) fs.rmSync(`${legacy}${suffix}`, { force: true });
  if (!fs.existsSync(dataPaths(dataDir).activeProfile)) writeActiveProfile(dataDir, profile);
  logger?.info(
    { from: legacy, to: target.db, profile },
    `adopted the single-file database as the ${profile} profile's database`,
  );
  return { profile, from: legacy, to: target.db };
}

/**
 * Opens (creating if needed) `profile`'s own database. Its stored `profile` setting always names the
 * profile, so loadSettings(db).profile answers which workspace a handle belongs to.
 */
export function openProfileDatabase(dataDir: string, profile: Profile): Db {
  const paths = dataPaths(dataDir, profile);
  fs.mkdirSync(paths.profileDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(paths.db);
  try {
    const stored = JSON.stringify(profile);
    if (settingValue(db, 'profile') !== stored) putSetting(db, 'profile', stored, Date.now());
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** Adopts an old single-file database if there is one, then opens the active profile's database. */
export function openActiveProfileDatabase(dataDir: string, logger?: Log): { profile: Profile; db: Db } {
  fs.mkdirSync(dataPaths(dataDir).dataDir, { recursive: true, mode: 0o700 });
  adoptLegacyDatabase(dataDir, logger);
  const profile = readActiveProfile(dataDir, logger);
  return { profile, db: openProfileDatabase(dataDir, profile) };
}
