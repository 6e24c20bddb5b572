import { z } from 'zod';
import { channel, noRequest } from './define.js';
import { LANGUAGE_CHOICES, type LanguageChoice, type Words } from '../../words/words.shared.js';

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

export { LANGUAGE_CHOICES, type LanguageChoice };

export const appChannels = {
  'app.info': channel<typeof noRequest, AppInfo>(noRequest),
  'app.status': channel<typeof noRequest, AppStatus>(noRequest),
  /** The desk's language (kept per desk, not per profile: a profile switch keeps it). Answered while locked. */
  'app.language': channel<typeof noRequest, { choice: LanguageChoice }>(noRequest),
  'app.setLanguage': channel<
    z.ZodObject<{ choice: z.ZodEnum<{ system: 'system'; en: 'en'; fr: 'fr' }> }>,
    { choice: LanguageChoice }
  >(z.object({ choice: z.enum(LANGUAGE_CHOICES, { message: 'errors.zod.language' }) })),
};

export type appEvents = {
  /** A notice: its words (said in the person's language) and their English. */
  'app.notice': { level: 'info' | 'warning' | 'error'; message: string; words?: Words };
  'app.status': AppStatus;
  /** The active profile (workspace) changed: every screen reloads its data from the new profile's database. */
  'app.profileChanged': { profile: ProfileName };
  /** The local callback receiver handled a delivery (screens listing collections reload). */
  'callbacks.ingested': { result: string; reference: string | null };
};
