// Brings the team database to the newest schema this app knows, in the discipline of the SQLite
// migrations (main/store/sqlite/connection.ts): numbered, each in its own transaction, never edited once shipped,
// and a database newer than the app is refused rather than guessed at.
//
// Several desktops (and `serve`) may start at the same moment against a new database: every step
// locks team.migration_turn first and reads the version again under it, so each migration runs
// exactly once and the others wait, then find nothing to do.
//
// The lock is a table (no columns, no rows, no grants), as the write turns of migration 8 are, not an
// advisory lock: any login may take any advisory lock, so a support login holding
// pg_advisory_lock(19780, 0) stalled every team init and migration. LOCK TABLE needs a privilege on
// the table (SELECT for ACCESS SHARE; UPDATE, DELETE or TRUNCATE for the others), and only its owner,
// the login that migrates, has one.
import type pg from 'pg';
import { withPooledClient } from '../store/pg/transaction.js';
import { TeamError, TeamUnavailableError, translatePgError } from './errors.js';
import { poolLogin } from './pool.js';
import { teamMigrations, type TeamMigration } from './migrations/index.js';
import { messageOf } from '../errors.shared.js';

/** SQLSTATEs of two sessions creating the same schema or table at once: the loser tries again. */
// XX000 'tuple concurrently updated': two sessions revoking on the same new table at once.
const CREATED_MEANWHILE = new Set(['23505', '42P06', '42P07', '42710', 'XX000']);

export interface MigrateResult {
  from: number;
  to: number;
  applied: number[];
}

export async function migrate(pool: pg.Pool, migrations: TeamMigration[] = teamMigrations): Promise<MigrateResult> {
  try {
    // One connection for every step, listened to while it is out of the pool: PostgreSQL stopped hard in the
    // middle of a step failed the step and, its 'error' heard by nobody, ended the process (a desk or serve
    // at its start).
    return await withPooledClient(pool, (client, markBroken) => migrateOn(client, markBroken, migrations));
  } catch (e) {
    throw translatePgError(e, 'migrate the team database', poolLogin(pool));
  }
}

async function migrateOn(
  client: pg.PoolClient,
  markBroken: (e: Error) => void,
  migrations: TeamMigration[],
): Promise<MigrateResult> {
  const latest = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const step = async <T>(fn: () => Promise<T>, lock = true): Promise<T> => {
    await client.query('BEGIN');
    try {
      if (lock) await client.query('LOCK TABLE team.migration_turn IN EXCLUSIVE MODE');
      const result = await fn();
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch(markBroken);
      throw e;
    }
  };
  const version = async (): Promise<number> => {
    const r = await client.query<{ v: number }>(
      'SELECT coalesce(max(version), 0)::int AS v FROM team.schema_migrations',
    );
    const current = r.rows[0]!.v;
    if (current > latest) {
      throw new TeamError(
        `the team database is at schema version ${current}, newer than this app knows (${latest}); use a newer Merchant Desk`,
      );
    }
    return current;
  };
  // The schema, the version table and the lock itself, before there is a lock to take: sessions
  // racing to create them may collide (the loser's insert into the catalog fails once the winner
  // commits), and the loser then finds them made.
  for (let attempt = 1; ; attempt++) {
    try {
      await step(async () => {
        await client.query('CREATE SCHEMA IF NOT EXISTS team');
        await client.query(`CREATE TABLE IF NOT EXISTS team.schema_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT clock_timestamp(),
          applied_by name NOT NULL DEFAULT session_user
        )`);
        await client.query('CREATE TABLE IF NOT EXISTS team.migration_turn ()');
        await client.query('REVOKE ALL ON team.migration_turn FROM PUBLIC');
      }, false);
      break;
    } catch (e) {
      if (attempt >= 5 || !CREATED_MEANWHILE.has((e as { code?: string }).code ?? '')) throw e;
    }
  }
  const from = await step(version);
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= from) continue;
    await step(async () => {
      if (m.version <= (await version())) return; // applied meanwhile by another process
      try {
        await client.query(m.sql);
      } catch (e) {
        // The line lost in the middle of it is an outage (said as such by migrate's caller), not a failed migration.
        if (translatePgError(e, 'migrate') instanceof TeamUnavailableError) throw e;
        throw new TeamError(
          `team migration ${m.version} (${m.name}) failed: ${messageOf(e)}`,
          (e as { code?: string }).code,
          {
            cause: e,
          },
        );
      }
      await client.query('INSERT INTO team.schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    });
  }
  return { from, to: Math.max(from, latest), applied };
}
