// What each setting may hold: one zod schema per top-level setting (so each is validated, and falls back,
// on its own), the types they give, and the defaults. Reading, checking across settings and writing them
// is settings.ts.
import os from 'node:os';
import { z } from 'zod';
import { STALE_PENDING_AFTER_MS } from '../store/sqlite/stale-pending.js';
import type { PollIntervals } from '../poller/poller.js';
import { caCertificateProblem, givenDatabaseUrlProblem, SSL_MODES, type SslMode } from '../team/database-url.js';

export const PROFILES = ['embedded', 'sandbox', 'live', 'team'] as const;
export type Profile = (typeof PROFILES)[number];

export const DEFAULT_REDIRECT_URL = 'https://merchant-desk.invalid/return';

const httpUrl = z
  .string()
  .trim()
  .refine(
    (s) => {
      try {
        const u = new URL(s);
        return (
          (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.search && !u.hash
        );
      } catch {
        return false;
      }
    },
    { message: 'settings.err.httpUrl' },
  );

const httpsUrl = z
  .string()
  .trim()
  .refine(
    (s) => {
      try {
        const u = new URL(s);
        return u.protocol === 'https:' && !u.username && !u.password;
      } catch {
        return false;
      }
    },
    { message: 'settings.err.httpsUrl' },
  );

// The team database: the operator's password is asked at sign-in (and kept only in the OS keychain, when
// they ask to be remembered), so a URL carrying one is refused rather than stored in plain settings; the
// same check as every command's --database (team/database-url.ts).
const teamDatabaseUrl = z
  .string()
  .trim()
  .superRefine((s, ctx) => {
    const problem = givenDatabaseUrlProblem(
      s,
      'each operator signs in with their own password, which is kept only in the OS keychain (and only when they ask to be remembered)',
    );
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The CA certificate (PEM text, stored with the profile: the renderer never names a file). */
const teamSslCa = z
  .string()
  .max(65536, 'errors.zod.caTooLarge')
  .superRefine((s, ctx) => {
    const problem = caCertificateProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A PostgreSQL login, as main/team/operators.ts accepts them. */
const teamLogin = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_]{1,62}$/, 'settings.err.login');

const ms = (min: number, max: number) =>
  z.number().int('settings.err.wholeMs').min(min, 'settings.err.atLeastMs').max(max, 'settings.err.atMostMs');

export const callbackReceiverSchema = z.object({
  enabled: z.boolean(),
  host: z.string().trim().min(1, 'settings.err.empty'),
  /** 0 = pick a free port at start. */
  port: z.number().int('settings.err.whole').min(0, 'settings.err.port').max(65535, 'settings.err.port'),
});

export const pollIntervalsSchema = z.object({
  balancesMs: ms(5_000, 86_400_000),
  providersMs: ms(60_000, 7 * 86_400_000),
});

// At most 15 minutes (PCI DSS 8.2.8). Whole minutes, except under NODE_ENV=test where a fraction down
// to one second lets an end-to-end test watch the app lock without waiting minutes.
const idleLockMinutes = z
  .number({ message: 'settings.err.minutes' })
  .max(15, 'settings.err.atMost15')
  .pipe(
    process.env.NODE_ENV === 'test'
      ? z.number().min(1 / 60, 'settings.err.atLeast1')
      : z.number().int('settings.err.wholeMinutes').min(1, 'settings.err.atLeast1'),
  );

/** One schema per top-level setting, so each is validated (and falls back) on its own. */
export const settingSchemas = {
  profile: z.enum(PROFILES, { message: 'settings.err.profile' }),
  /** The service's base URL (sandbox and live). The embedded profile learns it from its sandbox. */
  baseUrl: httpUrl.nullable(),
  redirectUrl: httpsUrl,
  callbackReceiver: callbackReceiverSchema,
  pollIntervals: pollIntervalsSchema,
  /** Cached balances older than this (or after a failed poll) are shown as stale. */
  staleAfterMs: ms(10_000, 7 * 86_400_000),
  /** A PENDING collection older than this is flagged "stale pending" by reconciliation. */
  stalePendingAfterMs: ms(STALE_PENDING_AFTER_MS.min, STALE_PENDING_AFTER_MS.max),
  /** Who is using the app; recorded on collections and resolutions. */
  operatorName: z.string().trim().min(1, 'settings.err.empty').max(64, 'settings.err.atMost64'),
  /** Absolute path of the imported service public key PEM (a copy inside the data folder), or null. */
  servicePublicKeyPath: z.string().min(1).nullable(),
  /** Minutes without input before the app locks itself (main/lock). */
  idleLockMinutes,
  /** The team profile's PostgreSQL (postgres://HOST:PORT/DATABASE, never with a password), or null. */
  teamDatabaseUrl: teamDatabaseUrl.nullable(),
  /** The operator who signs in on this desktop (team profile), or null. */
  teamLogin: teamLogin.nullable(),
  /** TLS to the team database; null: by host (loopback: plain, any other host: verify-full). */
  teamSslMode: z.enum(SSL_MODES, { message: 'errors.zod.sslMode' }).nullable(),
  /** The CA certificate (PEM) that signed the team database's certificate; null: the public CAs. */
  teamSslCa: teamSslCa.nullable(),
} as const;

export type SettingName = keyof typeof settingSchemas;
export type Settings = { [K in SettingName]: z.output<(typeof settingSchemas)[K]> };

export interface CallbackReceiverSettings {
  enabled: boolean;
  host: string;
  port: number;
}

/** A partial update; nested objects may be partial too (merged into the current value). */
export interface SettingsPatch {
  profile?: Profile;
  baseUrl?: string | null;
  redirectUrl?: string;
  callbackReceiver?: Partial<CallbackReceiverSettings>;
  pollIntervals?: Partial<PollIntervals>;
  staleAfterMs?: number;
  stalePendingAfterMs?: number;
  operatorName?: string;
  servicePublicKeyPath?: string | null;
  idleLockMinutes?: number;
  teamDatabaseUrl?: string | null;
  teamLogin?: string | null;
  teamSslMode?: SslMode | null;
  teamSslCa?: string | null;
}

export function defaultSettings(): Settings {
  let user = 'operator';
  try {
    user = os.userInfo().username || user;
  } catch {
    /* no passwd entry (containers): keep the generic name */
  }
  return {
    profile: 'embedded',
    baseUrl: null,
    redirectUrl: DEFAULT_REDIRECT_URL,
    callbackReceiver: { enabled: true, host: '127.0.0.1', port: 0 },
    pollIntervals: { balancesMs: 60_000, providersMs: 900_000 },
    staleAfterMs: 180_000,
    stalePendingAfterMs: STALE_PENDING_AFTER_MS.default,
    operatorName: user.slice(0, 64),
    servicePublicKeyPath: null,
    idleLockMinutes: 15,
    teamDatabaseUrl: null,
    teamLogin: null,
    teamSslMode: null,
    teamSslCa: null,
  };
}
