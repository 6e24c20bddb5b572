import { channel, noRequest } from './define.js';

export type ProfileName = 'embedded' | 'sandbox' | 'live';

export interface AppInfo {
  version: string;
  profile: ProfileName;
  shell: 'electron' | 'chromium';
  dataDir: string;
}

/** What the status bar shows. Times are ms since the epoch. */
export interface AppStatus {
  profile: ProfileName;
  /** online: the last poll worked; offline: no answer (network); error: the service answered badly. */
  connection: 'starting' | 'online' | 'offline' | 'error' | 'not_configured';
  /** A readable reason when connection is not online. */
  message: string | null;
  lastSuccessfulPoll: number | null;
  /** Whether keys persist in the OS keychain, are held in memory (embedded), or the keychain failed. */
  keychain: 'available' | 'memory' | 'unavailable';
}

export const appChannels = {
  'app.info': channel<typeof noRequest, AppInfo>(noRequest),
  'app.status': channel<typeof noRequest, AppStatus>(noRequest),
};

export type appEvents = {
  'app.notice': { level: 'info' | 'warning' | 'error'; message: string };
  'app.status': AppStatus;
  /** The active profile (workspace) changed: every screen reloads its data from the new profile's database. */
  'app.profileChanged': { profile: ProfileName };
  /** The local callback receiver handled a delivery (screens listing collections reload). */
  'callbacks.ingested': { result: string; reference: string | null };
};
