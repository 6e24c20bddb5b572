// Where serve's secrets come from: the environment or credential files (a --credentials folder, or
// systemd's $CREDENTIALS_DIRECTORY from LoadCredential=), never the command line, where `ps`, shell
// history and process listings would show them. A credential file wins over the environment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { givenDatabaseUrlProblem, parseGivenDatabaseUrl } from '../team/database-url.js';
import { messageOf } from '../errors.shared.js';

/** One secret: its environment variable and its credential file name. */
export const SECRETS = {
  merchantPublicKey: { env: 'MERCHANT_DESK_MERCHANT_PUBLIC_KEY', file: 'merchant-public-key' },
  merchantSecretKey: { env: 'MERCHANT_DESK_MERCHANT_SECRET_KEY', file: 'merchant-secret-key' },
  signingKey: { env: 'MERCHANT_DESK_SIGNING_KEY', file: 'signing-key' },
  /** The service's RSA public key, PEM text. */
  servicePublicKey: { env: 'MERCHANT_DESK_SERVICE_PUBLIC_KEY', file: 'service-public-key.pem' },
  databasePassword: { env: 'PGPASSWORD', file: 'database-password' },
} as const;
export type SecretName = keyof typeof SECRETS;

/** Not secrets: flags, with an environment variable each (systemd's Environment=). */
export const SETTINGS_ENV = {
  database: 'MERCHANT_DESK_DATABASE_URL',
  listen: 'MERCHANT_DESK_LISTEN',
  serviceUrl: 'MERCHANT_DESK_SERVICE_URL',
  trustProxy: 'MERCHANT_DESK_TRUST_PROXY',
  /** --sslmode */
  sslmode: 'MERCHANT_DESK_SSLMODE',
  /** --ssl-ca: the file of the CA certificate (PEM) that signed the database server's certificate. */
  sslCa: 'MERCHANT_DESK_SSL_CA',
  /** --journal-days: how long serve keeps each callback it acknowledged (serve/journal.ts). */
  journalDays: 'MERCHANT_DESK_JOURNAL_DAYS',
  /** --restore-wait-seconds: how long serve leaves the desks to put back lost events before it does (record-watch.ts). */
  restoreWaitSeconds: 'MERCHANT_DESK_RESTORE_WAIT_SECONDS',
  /** --record-check-seconds: how often serve checks the record still holds what it acknowledged. */
  recordCheckSeconds: 'MERCHANT_DESK_RECORD_CHECK_SECONDS',
  /** --rate-limit: callbacks a second from one source (the client address; bursts of five times that). */
  rateLimit: 'MERCHANT_DESK_RATE_LIMIT',
  /** --verify-threads: worker threads for the RSA signature checks (callbacks/verify-pool.ts). */
  verifyThreads: 'MERCHANT_DESK_VERIFY_THREADS',
  /** --poll-lease-seconds: how long the poller lease is taken for (serve/poll-lease.ts). */
  pollLeaseSeconds: 'MERCHANT_DESK_POLL_LEASE_SECONDS',
} as const;

export const DEFAULT_LISTEN = '127.0.0.1:8080';

/** Raised for a set-up the operator must fix; the CLI prints it as a usage error. */
export class ServeConfigError extends Error {
  override name = 'ServeConfigError';
}

// Options that would put a secret in argv: refused by name, with where to put it instead.
const SECRET_FLAGS = [
  'public-key',
  'secret-key',
  'signing-key',
  'signing-secret',
  'merchant-key',
  'merchant-public-key',
  'merchant-secret-key',
  'service-public-key',
  'password',
  'database-password',
  'pgpassword',
];

function whereSecretsGo(): string {
  return Object.values(SECRETS)
    .map((s) => `${s.env} or the credential file ${s.file}`)
    .join(', ');
}

/** Throws when argv carries a secret: a key option, or a password inside --database. */
export function refuseSecretsInArgv(args: readonly string[]): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    const name = /^--([^=]+)/.exec(a)?.[1];
    if (name && SECRET_FLAGS.includes(name)) {
      throw new ServeConfigError(
        `--${name}: keys and passwords are never taken from the command line (ps and shell history show it); ` +
          `set them in the environment or in credential files (--credentials DIR or systemd's LoadCredential=): ${whereSecretsGo()}`,
      );
    }
    const url = a === '--database' ? args[i + 1] : a.startsWith('--database=') ? a.slice('--database='.length) : null;
    const problem = url ? givenDatabaseUrlProblem(url, PASSWORD_INSTEAD) : null;
    // Only a password is refused this early (before anything is read); the URL's other faults are said later.
    if (problem && /password/.test(problem)) throw new ServeConfigError(`--database: ${problem}`);
  }
}

/** Where serve's database password goes instead of the URL. */
const PASSWORD_INSTEAD = `give it in ${SECRETS.databasePassword.env} or the credential file ${SECRETS.databasePassword.file}`;

export interface SecretSources {
  env: NodeJS.ProcessEnv;
  /** --credentials DIR, else $CREDENTIALS_DIRECTORY. */
  credentialsDir: string | null;
}

/** A secret from its credential file (trailing newline dropped), else the environment, else null. */
export function readSecret(name: SecretName, src: SecretSources): string | null {
  const s = SECRETS[name];
  if (src.credentialsDir) {
    const file = path.join(src.credentialsDir, s.file);
    let text: string | null = null;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new ServeConfigError(`cannot read the credential file ${file}: ${messageOf(e)}`);
      }
    }
    if (text !== null) {
      const v = text.replace(/\r?\n$/, '');
      if (v) return v;
    }
  }
  const v = src.env[s.env];
  return v ? v : null;
}

/** The database URL to connect with: the password added from its secret (never from the URL itself). */
export function databaseUrl(flag: string | undefined, src: SecretSources): string {
  const raw = flag ?? src.env[SETTINGS_ENV.database];
  if (!raw) {
    throw new ServeConfigError(
      `no database: pass --database postgres://LOGIN@HOST:PORT/DATABASE or set ${SETTINGS_ENV.database}`,
    );
  }
  // The URL from the environment is checked like the flag: systemd shows a unit's Environment= to any user.
  let url: URL;
  try {
    url = parseGivenDatabaseUrl(raw, flag !== undefined ? '--database' : SETTINGS_ENV.database, PASSWORD_INSTEAD);
  } catch (e) {
    throw new ServeConfigError(messageOf(e));
  }
  if (!url.username)
    throw new ServeConfigError('the database URL names no login; serve signs in as its receiver login');
  const password = readSecret('databasePassword', src);
  if (password) url.password = encodeURIComponent(password);
  return url.toString();
}

/** A positive number of `unit` given for `name`, at most `max`; a clear error naming the setting otherwise. */
export function positiveNumber(text: string, name: string, unit: string, max: number): number {
  const n = Number(text.trim());
  if (!text.trim() || !Number.isFinite(n) || n <= 0 || n > max)
    throw new ServeConfigError(`${name} must be a number of ${unit} above 0 and at most ${max} (got ${text})`);
  return n;
}

/** A whole number from `min` to `max` given for `name`; a clear error naming the setting otherwise. */
export function wholeNumber(text: string, name: string, min: number, max: number): number {
  const n = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || n < min || n > max)
    throw new ServeConfigError(`${name} must be a whole number from ${min} to ${max} (got ${text})`);
  return n;
}

export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65_535) throw new ServeConfigError(`--listen must be HOST:PORT, e.g. 127.0.0.1:8080 (got ${text})`);
  return { host: (m[1] ?? m[2])!, port };
}

/** serve's own folder (its security log): systemd's StateDirectory=, else the user's state folder. */
export function defaultServeDataDir(env: NodeJS.ProcessEnv): string {
  if (env.STATE_DIRECTORY) return env.STATE_DIRECTORY.split(':')[0]!;
  const home = env.HOME ?? os.homedir();
  return path.join(env.XDG_STATE_HOME ?? path.join(home, '.local', 'state'), 'merchant-desk-serve');
}
