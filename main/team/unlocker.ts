// The team profile's sign-in behind the idle lock: the operator's password is checked by PostgreSQL
// itself (SCRAM), by opening a pool as that login. The lock screen is the sign-in screen; a wrong
// password and an unknown login both answer "no" without saying which, so nothing leaks about who
// exists; a disabled operator is told so, as the CLI does, which PostgreSQL says only after the
// password was right; an unreachable database is a clear error, never a wrong password.
import type pg from 'pg';
import { LockError, type Unlocker } from '../lock/index.js';
import { words, type WordValues, type Words } from '../words/words.shared.js';
import type { AppSecret } from '../secrets/index.js';
import { TeamDisabledError, TeamError, TeamSignInError, TeamTlsError, TeamUnavailableError } from './errors.js';
import { checkOffline, keepOfflineCheck } from './offline-check.js';
import { currentOperator, type TeamRole } from './operators.js';
import { openTeamPool, parseDatabaseUrl } from './pool.js';
import type { TeamTls } from './tls.js';
import { messageOf } from '../errors.shared.js';

export interface TeamUnlockerOptions {
  /** postgres://HOST:PORT/DATABASE (settings refuse one with a password). */
  databaseUrl: string;
  /** TLS to the team database (the profile's sslmode and CA); default: by host. */
  tls?: TeamTls;
  login: string;
  /** Where the password is kept when the operator asks to be remembered (the OS keychain). */
  remembered: AppSecret;
  /**
   * Where the check of the last accepted password is kept (offline-check.ts), so the desk's local copy
   * opens while the database cannot be reached. Without it an unreachable database keeps the desk locked.
   */
  offlineCheck?: AppSecret;
  /**
   * A signed-in pool for this operator: it becomes the workspace's session (or is closed). `offline`:
   * the password matched the desk's offline check; PostgreSQL has not seen it yet (the pool connects later).
   */
  onSignIn(pool: pg.Pool, role: TeamRole, how: { offline: boolean }): void | Promise<void>;
  onIdleError?: (err: Error) => void;
}

/** The database URL signed in as `login` with `password` (never logged: it holds the password). */
export function signInUrl(databaseUrl: string, login: string, password: string): string {
  const u = parseDatabaseUrl(databaseUrl);
  u.username = encodeURIComponent(login);
  u.password = encodeURIComponent(password);
  return u.toString();
}

/** The keychain name of a remembered password: one per login and database. */
export function rememberedPasswordName(databaseUrl: string, login: string): string {
  const u = parseDatabaseUrl(databaseUrl);
  return `team-password:${login}@${u.host}${u.pathname}`;
}

/** What the lock screen says to a disabled operator who gave the right password. */
function disabled(login: string): LockError {
  return new LockError('disabled', words('lock.disabled', { login }), 'secret');
}

export class TeamUnlocker implements Unlocker {
  readonly method = 'password' as const;
  /** Why the last sign-in was refused other than as a wrong password (Unlocker.problem). */
  private refused: Words | null = null;
  constructor(private readonly o: TeamUnlockerOptions) {}

  problem(): Words | null {
    return this.refused;
  }

  get login(): string {
    return this.o.login;
  }

  async needsSetup(): Promise<boolean> {
    return false;
  }

  async setUp(): Promise<void> {
    throw new LockError('conflict', words('lock.ownPassword'), 'secret');
  }

  async verify(secret: string, opts: { remember?: boolean } = {}): Promise<boolean> {
    try {
      const ok = await this.signIn(secret, opts);
      this.refused = null;
      return ok;
    } catch (e) {
      this.refused = e instanceof LockError ? e.words : null;
      throw e;
    }
  }

  private async signIn(secret: string, opts: { remember?: boolean }): Promise<boolean> {
    const pool = openTeamPool(signInUrl(this.o.databaseUrl, this.o.login, secret), {
      ...(this.o.tls ? { tls: this.o.tls } : {}),
      ...(this.o.onIdleError ? { onIdleError: this.o.onIdleError } : {}),
    });
    let role: TeamRole;
    let offline = false;
    try {
      const op = await currentOperator(pool);
      // A login that is not a team operator is refused like a wrong password.
      if (!op) {
        await pool.end().catch(() => undefined);
        return false;
      }
      if (op.disabledAt !== null) {
        await pool.end().catch(() => undefined);
        throw disabled(this.o.login);
      }
      role = op.role;
    } catch (e) {
      if (e instanceof LockError) throw e;
      if (e instanceof TeamDisabledError) {
        await pool.end().catch(() => undefined);
        throw disabled(this.o.login);
      }
      if (e instanceof TeamSignInError) {
        await pool.end().catch(() => undefined);
        return false;
      }
      // Why, as words inside the lock's words (the team error's own, or the failure's text as it is).
      const why: WordValues =
        e instanceof TeamError && e.words ? { ...e.words.values, whyId: e.words.id } : { why: messageOf(e) };
      const check =
        e instanceof TeamUnavailableError && this.o.offlineCheck
          ? await checkOffline(this.o.offlineCheck, secret)
          : null;
      if (!check?.ok) {
        await pool.end().catch(() => undefined);
        throw new LockError(
          'unavailable',
          words(
            check?.reason === 'mismatch'
              ? 'lock.offlineMismatch'
              : e instanceof TeamTlsError
                ? 'lock.tls'
                : 'lock.cannotSignIn',
            why,
          ),
          'secret',
        );
      }
      role = check.role;
      offline = true;
    }
    if (!offline && this.o.offlineCheck) {
      // Best effort: without it only an offline sign-in is lost, never this one.
      await keepOfflineCheck(this.o.offlineCheck, secret, role).catch((e: unknown) => this.o.onIdleError?.(e as Error));
    }
    if (opts.remember === true) await this.o.remembered.set(secret);
    else if (opts.remember === false) await this.o.remembered.delete().catch(() => undefined);
    await this.o.onSignIn(pool, role, { offline });
    return true;
  }
}
