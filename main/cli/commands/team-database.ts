// What every team subcommand does the same way: the --database flag and its TLS, signing in with the
// password in memory only, the --login flag, and a refusal from the database named by the flag a user typed.
import type pg from 'pg';
import { UsageError, type CliContext } from '../command.js';
import { openTeamPool } from '../../team/pool.js';
import { probe } from '../../store/pg/connection.js';
import { parseGivenDatabaseUrl } from '../../team/database-url.js';
import { transportOf, type TeamTls } from '../../team/tls.js';
import { tlsFromFlags } from '../team-tls.js';
import { TeamFieldError, translatePgError } from '../../team/errors.js';
import { isValidLogin, LOGIN_RULE } from '../../team/roles.shared.js';
import { SIGN_IN_PASSWORD_ENV } from './team-passwords.js';
import { DeskError, messageOf } from '../../errors.shared.js';

export const DB = '--database postgres://LOGIN@HOST:PORT/DATABASE';

export function databaseUrl(value: string | undefined): URL {
  if (!value) throw new UsageError(`--database is required, e.g. ${DB.split(' ')[1]}`);
  try {
    return parseGivenDatabaseUrl(
      value,
      '--database',
      `give it in ${SIGN_IN_PASSWORD_ENV}, on standard input or when asked`,
    );
  } catch (e) {
    throw new UsageError(messageOf(e));
  }
}

/** The TLS settings of --sslmode and --ssl-ca; a connection not protected off loopback is said on stderr. */
export function tlsOf(
  values: { sslmode?: string | undefined; 'ssl-ca'?: string | undefined },
  url: URL,
  ctx: CliContext,
): TeamTls {
  const tls = tlsFromFlags(values.sslmode, values['ssl-ca']);
  const { warning } = transportOf(url, tls, ctx.env);
  if (warning) ctx.io.stderr.write(`merchant-desk: warning: ${warning}\n`);
  return tls;
}

export function loginOfUrl(url: URL, env: NodeJS.ProcessEnv): string {
  return decodeURIComponent(url.username) || env.PGUSER || env.USER || '(your system login)';
}

/** Opens a pool for `url` with `password` set in memory only (never printed: messages name the login). */
export function openSignedIn(url: URL, password: string | null, tls: TeamTls): pg.Pool {
  const u = new URL(url.href);
  if (password !== null) u.password = encodeURIComponent(password);
  return openTeamPool(u.href, { max: 2, tls });
}

/** Signs in now, so a wrong password is reported before a new one is asked for. */
export async function checkSignIn(pool: pg.Pool, login: string): Promise<void> {
  try {
    await probe(pool);
  } catch (e) {
    throw translatePgError(e, 'sign in', login);
  }
}

export function loginFlag(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required (the operator's PostgreSQL login)`);
  if (!isValidLogin(value)) throw new UsageError(`${flag}: must be ${LOGIN_RULE} (got ${JSON.stringify(value)})`);
  return value;
}

/** The database's field names, as the flags a user typed. */
export function withFlagNames(e: unknown, loginFlagName = '--login'): unknown {
  if (!(e instanceof TeamFieldError)) return e;
  const flag: Record<string, string> = {
    login: loginFlagName,
    role: '--role',
    displayName: '--name',
    display_name: '--name',
    password: 'the new password',
  };
  const name = flag[e.field];
  if (!name) return e;
  return new DeskError(e.kind, `${name}: ${e.message.slice(e.field.length + 2)}`, { expose: true, cause: e });
}
