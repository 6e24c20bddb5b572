import os from 'node:os';
import path from 'node:path';
import type { Profile } from './settings.js';

/**
 * Where things live inside the app data folder. The app, the CLI and tests all use this.
 * Each profile has its own database (settings, cache, collections, reconciliation) under
 * profiles/<profile>/, so sandbox test money never mixes with live money; which one is active is recorded
 * in active-profile.json (main/settings/profile-database.ts).
 */
export interface DataPaths {
  dataDir: string;
  /** The profile's own folder: <dataDir>/profiles/<profile>. */
  profileDir: string;
  /** The profile's SQLite database (its settings, cache, collections, events, reconciliation). */
  db: string;
  /** The single database of data folders from before profiles had their own (adopted once, then gone). */
  legacyDb: string;
  /** Which profile is active: { "profile": "sandbox" }. Missing means embedded. */
  activeProfile: string;
  /** pino file logs (all profiles). */
  logs: string;
  /** The profile's imported service public key (a copy; the original may be anywhere). */
  serviceKey: string;
  /** The embedded profile's sandbox state. */
  sandbox: string;
  /** Where exports go when the shell has no save dialog (the renderer names only the file). */
  exports: string;
  /** Where the person saves callbacks files to import when the shell has no open dialog (listed by name). */
  imports: string;
}

/** Paths for `profile` (default embedded: the profile a fresh data folder starts on). */
export function dataPaths(dataDir: string, profile: Profile = 'embedded'): DataPaths {
  const dir = path.resolve(dataDir);
  const profileDir = path.join(dir, 'profiles', profile);
  return {
    dataDir: dir,
    profileDir,
    db: path.join(profileDir, 'merchant-desk.sqlite'),
    legacyDb: path.join(dir, 'merchant-desk.sqlite'),
    activeProfile: path.join(dir, 'active-profile.json'),
    logs: path.join(dir, 'logs'),
    serviceKey: path.join(profileDir, 'service-public-key.pem'),
    sandbox: path.join(dir, 'sandbox'),
    exports: path.join(dir, 'exports'),
    imports: path.join(dir, 'imports'),
  };
}

/** The per-user app data folder, as Electron's app.getPath('userData') would pick it. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MERCHANT_DESK_DATA_DIR) return env.MERCHANT_DESK_DATA_DIR;
  const home = env.HOME ?? os.homedir();
  switch (process.platform) {
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Merchant Desk');
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Merchant Desk');
    default:
      return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'merchant-desk');
  }
}
