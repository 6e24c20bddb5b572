// One transaction on one pooled connection.
import type pg from 'pg';

/**
 * Runs `fn` between BEGIN and COMMIT on one connection of `pool`, and rolls back on any error (which it
 * throws as it came). A connection whose ROLLBACK failed is gone: it is released as broken, so the pool
 * does not hand it out again.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
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
      broken = rollbackError as Error;
    }
    throw e;
  } finally {
    client.release(broken);
  }
}
