// Connections to the team database. A pool per signed-in operator: the login is the operator, so
// PostgreSQL's grants and policies apply to everything the desktop does.
import pg from 'pg';
import { TeamFieldError, translatePgError } from './errors.js';

export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

export interface TeamPoolOptions {
  /** Most connections held at once (default 4: a desktop writes little and pulls in batches). */
  max?: number;
  /** Called when an idle pooled connection fails (server restart, operator disabled). */
  onIdleError?: (err: Error) => void;
}

/** Checks a connection URL and returns its parts; refuses anything but postgres:// or postgresql://. */
export function parseDatabaseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TeamFieldError('database URL', 'is not a URL; expected postgres://LOGIN@HOST:PORT/DATABASE');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new TeamFieldError('database URL', `must start with postgres:// (got ${parsed.protocol}//)`);
  }
  if (!parsed.pathname || parsed.pathname === '/') {
    throw new TeamFieldError('database URL', 'names no database; expected postgres://LOGIN@HOST:PORT/DATABASE');
  }
  return parsed;
}

export function openTeamPool(url: string, options: TeamPoolOptions = {}): pg.Pool {
  parseDatabaseUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 4,
    application_name: 'merchant-desk',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client's error is emitted on the pool; unhandled, it would end the process.
  pool.on('error', (err) => options.onIdleError?.(err));
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
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw translatePgError(e, doing, poolLogin(pool));
  }
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError as Error; // the connection is gone: do not hand it out again
    }
    throw translatePgError(e, doing, poolLogin(pool));
  } finally {
    client.release(broken);
  }
}

/** Parses an int8 that pg hands over as a string; refuses one beyond what a JS number holds exactly. */
export function toSafeInteger(value: unknown, field: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n))
    throw new TeamFieldError(field, `${String(value)} is not an integer a JS number holds exactly`);
  return n;
}
