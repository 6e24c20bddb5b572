import { channel, noRequest } from './define.js';

import type { AppStatus } from '../../app/status.js';

/** What the status bar shows (built by main/app/status.ts). */
export type { AppStatus };

export type ProfileName = 'embedded' | 'sandbox' | 'live' | 'team';

export interface AppInfo {
  version: string;
  profile: ProfileName;
  shell: 'electron' | 'chromium';
  dataDir: string;
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
