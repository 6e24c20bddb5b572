// One pooled connection held for a while (a transaction, a migration's steps), and one transaction on it.
import type pg from 'pg';

/**
 * Runs `fn` with one connection of `pool` checked out, and gives it back, as broken when it died or when
 * `fn` says so through `markBroken` (a ROLLBACK that failed): the pool then never hands it out again.
 *
 * While the connection is out of the pool nobody else listens for its 'error': the pool stops listening
 * when it hands a connection out. A connection that dies then (the server stopped hard, a failover, a
 * reset) emits 'error' beside failing the query in flight, and an 'error' nobody hears ends the process:
 * a desk's window, or serve, gone in the middle of a charge or of its start's migration. So this listens
 * until the release. Every check-out of a pooled connection goes through here.
 */
export async function withPooledClient<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient, markBroken: (e: Error) => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const died = (e: Error) => (broken ??= e);
  client.on('error', died);
  try {
    return await fn(client, died);
  } finally {
    client.removeListener('error', died);
    client.release(broken);
  }
}

/**
 * Runs `fn` between BEGIN and COMMIT on one connection of `pool`, and rolls back on any error (which it
 * throws as it came). A connection whose ROLLBACK failed is gone: it is released as broken.
 */
export function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withPooledClient(pool, async (client, markBroken) => {
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch(markBroken);
      throw e;
    }
  });
}
