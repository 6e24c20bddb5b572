// Connections to the team database. A pool per signed-in operator: the login is the operator, so
// PostgreSQL's grants and policies apply to everything the desktop does.
import pg from 'pg';
import type { Queryable } from '../store/pg/connection.js';
import { inTransaction } from '../store/pg/transaction.js';
import { TeamFieldError, translatePgError } from './errors.js';
import { parseDatabaseUrl } from './database-url.js';
import { DEFAULT_TLS, pgConnectionConfig, type TeamTls } from './tls.js';

export type { Queryable } from '../store/pg/connection.js';

export interface TeamPoolOptions {
  /** Most connections held at once (default 4: a desktop writes little and pulls in batches). */
  max?: number;
  /** Called when an idle pooled connection fails (server restart, operator disabled). */
  onIdleError?: (err: Error) => void;
  /** TLS to the server (team/tls.ts); default: by host. */
  tls?: TeamTls;
  /** How long an idle connection stays open (default 30 s; 0: for good, so its loss is heard). */
  idleTimeoutMillis?: number;
}

export { parseDatabaseUrl } from './database-url.js';

/** The TLS settings each pool was opened with, so its LISTEN connection and workers connect alike. */
const tlsOfPool = new WeakMap<pg.Pool, TeamTls>();

/** The TLS settings `pool` connects with (the default when it was not opened here). */
export function poolTls(pool: pg.Pool): TeamTls {
  return tlsOfPool.get(pool) ?? DEFAULT_TLS;
}

export function openTeamPool(url: string, options: TeamPoolOptions = {}): pg.Pool {
  const tls = options.tls ?? DEFAULT_TLS;
  const pool = new pg.Pool({
    ...pgConnectionConfig(url, tls),
    max: options.max ?? 4,
    application_name: 'merchant-desk',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
  });
  // An idle client's error is emitted on the pool; unhandled, it would end the process.
  pool.on('error', (err) => options.onIdleError?.(err));
  tlsOfPool.set(pool, tls);
  return pool;
}

/** The login a URL signs in as (for messages). */
export function loginOf(url: string): string {
  return decodeURIComponent(parseDatabaseUrl(url).username) || '(default login)';
}

/** The login a pool signs in as, for messages; undefined when it cannot tell. */
export function poolLogin(pool: pg.Pool): string | undefined {
  const url = pool.options.connectionString;
  if (!url) return pool.options.user;
  try {
    return loginOf(url);
  } catch {
    return undefined;
  }
}

/** The login behind a pool or a client, for messages. */
export function queryableLogin(db: Queryable): string | undefined {
  if (db instanceof pg.Pool) return poolLogin(db);
  return (db as { user?: string }).user;
}

/** Runs `fn` in one transaction on one pooled connection; rolls back on any error. */
export async function withTransaction<T>(
  pool: pg.Pool,
  doing: string,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  try {
    return await inTransaction(pool, fn);
  } catch (e) {
    throw translatePgError(e, doing, poolLogin(pool));
  }
}

/** Parses an int8 that pg hands over as a string; refuses one beyond what a JS number holds exactly. */
export function toSafeInteger(value: unknown, field: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n))
    throw new TeamFieldError(field, `${String(value)} is not an integer a JS number holds exactly`);
  return n;
}
