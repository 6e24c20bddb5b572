// What a PostgreSQL statement runs on: a pool (each statement on any free connection), one pooled
// connection (a transaction's), or a connection of its own (LISTEN's). The modules beside this one hold
// every statement the app sends to the team database; they throw pg's own errors, and the team code
// that calls them says in words what failed (main/team/errors.ts translatePgError).
import type pg from 'pg';

export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

/** Runs the cheapest statement: resolves when the server answered (signed in), rejects when it did not. */
export async function probe(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
