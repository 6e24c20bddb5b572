// One transaction on one pooled connection.
import type pg from 'pg';

/**
 * Runs `fn` between BEGIN and COMMIT on one connection of `pool`, and rolls back on any error (which it
 * throws as it came). A connection whose ROLLBACK failed is gone: it is released as broken, so the pool
 * does not hand it out again.
 *
 * While the connection is out of the pool nobody else listens for its 'error': the pool stops listening
 * when it hands a connection out. A connection that dies then (the server stopped hard, a failover, a
 * reset) emits 'error' beside failing the query in flight, and an 'error' nobody hears ends the process:
 * a desk's window, or serve, gone in the middle of a charge. So this listens until the release, and the
 * connection goes back as broken.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const died = (e: Error) => (broken ??= e);
  client.on('error', died);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError as Error;
    }
    throw e;
  } finally {
    client.removeListener('error', died);
    client.release(broken);
  }
}
