import { z } from 'zod';
import { channel, noRequest } from './define.js';
import type { ProfileName } from './app.js';
import type { Words } from '../../words/words.shared.js';

export type KeyName = 'publicKey' | 'secretKey' | 'signingKey';

/** Everything the Settings screen may see. Keys: only whether they are set (never their values). */
export interface SettingsView {
  profile: ProfileName;
  baseUrl: string | null;
  /** The embedded profile's local sandbox URL (read-only), when it runs. */
  embeddedBaseUrl: string | null;
  redirectUrl: string;
  callbackReceiver: { enabled: boolean; host: string; port: number };
  /** Where the receiver listens now, when it runs. */
  callbackReceiverUrl: string | null;
  pollIntervals: { balancesMs: number; providersMs: number };
  staleAfterMs: number;
  operatorName: string;
  /** Minutes without input before the app locks itself (at most 15). */
  idleLockMinutes: number;
  /** Changes of the operator name recorded by main, newest first (`at`: ISO time). */
  operatorNameChanges: { from: string | null; to: string; at: string }[];
  keys: {
    publicKey: 'set' | 'unset';
    secretKey: 'set' | 'unset';
    signingKey: 'set' | 'unset';
    maskedPublicKey: string | null;
    store: 'keychain' | 'memory';
    available: boolean;
    reason: string | null;
    /** The origin the stored keys were saved for (they are sent nowhere else), or null. */
    boundTo: string | null;
    /**
     * Set when keys must be entered (again) for this origin, the base URL's: none are stored, or those
     * stored were saved for another host.
     */
    enterFor: string | null;
  };
  serviceKey: { bits: number; fingerprintSha256: string; source: 'imported' | 'embedded sandbox' } | null;
  /** Team profile: the team's PostgreSQL (never with a password) and who signs in on this desktop. */
  teamDatabaseUrl: string | null;
  teamLogin: string | null;
  /** TLS to the team database; null: by host (this computer: plain; any other host: verify-full). */
  teamSslMode: TeamSslMode | null;
  /** The CA certificate the team database's certificate is checked against (its PEM stays in main). */
  teamSslCa: { subject: string; fingerprintSha256: string; validTo: string } | null;
  /** What the team connection does with these settings, and the warning when it is not protected. */
  teamTransport: { mode: TeamSslMode; warning: string | null; warningWords: Words | null } | null;
  /** Whether main can open a file dialog for the CA certificate (else the file is read in the window). */
  teamCaDialog: boolean;
  /** Stored settings that were invalid and fell back to defaults. */
  problems: { field: string; message: string }[];
}

export const TEAM_SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type TeamSslMode = (typeof TEAM_SSL_MODES)[number];

const keyName = z.enum(['publicKey', 'secretKey', 'signingKey'], {
  message: 'errors.zod.keyName',
});

const settingsPatchSchema = z
  .object({
    profile: z.enum(['embedded', 'sandbox', 'live', 'team'], { message: 'errors.zod.profile' }),
    baseUrl: z.string().max(2048).nullable(),
    redirectUrl: z.string().max(2048),
    callbackReceiver: z
      .object({ enabled: z.boolean(), host: z.string().max(255), port: z.number().int('errors.zod.wholeNumber') })
      .partial(),
    pollIntervals: z
      .object({
        balancesMs: z.number().int('errors.zod.wholeNumber'),
        providersMs: z.number().int('errors.zod.wholeNumber'),
      })
      .partial(),
    staleAfterMs: z.number().int('errors.zod.wholeNumber'),
    operatorName: z.string().max(200),
    idleLockMinutes: z.number({ message: 'errors.zod.minutes' }),
    teamDatabaseUrl: z.string().max(2048).nullable(),
    teamLogin: z.string().max(63).nullable(),
    teamSslMode: z.enum(TEAM_SSL_MODES, { message: 'errors.zod.sslMode' }).nullable(),
  })
  .partial()
  .strict();

export const settingsChannels = {
  'settings.get': channel<typeof noRequest, SettingsView>(noRequest),
  /** A partial update, validated as a whole; nothing is saved when any field is wrong (error.fields). */
  'settings.update': channel<typeof settingsPatchSchema, SettingsView>(settingsPatchSchema),
  /** Stores a key of the current profile in the OS keychain. The value is never sent back. */
  'settings.setKey': channel<z.ZodObject<{ name: typeof keyName; value: z.ZodString }>, SettingsView>(
    z.object({ name: keyName, value: z.string().min(1, 'errors.zod.empty').max(4096, 'errors.zod.tooLong') }),
  ),
  'settings.clearKey': channel<z.ZodObject<{ name: typeof keyName }>, SettingsView>(z.object({ name: keyName })),
  /** Checks PEM text is an RSA public key, copies it into the data folder, shows size and fingerprint. */
  'settings.importServiceKey': channel<z.ZodObject<{ pem: z.ZodString }>, SettingsView>(
    z.object({
      pem: z.string().min(1, 'errors.zod.pemEmpty').max(65536, 'errors.zod.pemTooLarge'),
    }),
  ),
  /**
   * The team database's CA certificate: `pem` when the window read the file (no dialog in this shell),
   * nothing to have main open its file dialog, `clear` to remove it. Never a path.
   */
  'settings.setTeamCa': channel<
    z.ZodObject<{ pem: z.ZodOptional<z.ZodString>; clear: z.ZodOptional<z.ZodBoolean> }>,
    SettingsView
  >(
    z
      .object({
        pem: z.string().min(1, 'errors.zod.caEmpty').max(65536, 'errors.zod.caTooLarge').optional(),
        clear: z.boolean().optional(),
      })
      .strict(),
  ),
};

export type settingsEvents = {
  'settings.changed': { profile: ProfileName };
};
