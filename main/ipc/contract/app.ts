import { z } from 'zod';
import { channel } from './define.js';

export interface AppInfo {
  version: string;
  profile: 'embedded' | 'sandbox' | 'live';
  shell: 'electron' | 'chromium';
  dataDir: string;
}

export const appChannels = {
  'app.info': channel<z.ZodObject<{}>, AppInfo>(z.object({})),
};

// eslint-disable-next-line @typescript-eslint/consistent-type-definitions
export type appEvents = {
  'app.notice': { level: 'info' | 'warning' | 'error'; message: string };
};
