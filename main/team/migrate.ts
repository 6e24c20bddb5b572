// Brings the team database to the newest schema this app knows, in the discipline of the SQLite
// migrations (main/store/db.ts): numbered, each in its own transaction, never edited once shipped,
// and a database newer than the app is refused rather than guessed at.
//
// Several desktops (and `serve`) may start at the same moment against a new database: every step
// takes one transaction-level advisory lock first and reads the version again under it, so each
// migration runs exactly once and the others wait, then find nothing to do.
import type pg from 'pg';
import { TeamError, translatePgError } from './errors.js';
import { poolLogin } from './pool.js';
import { teamMigrations, type TeamMigration } from './migrations/index.js';

/** Advisory lock keys are (class, id) pairs; 19780 is this app's class (see 001-records.ts). */
export const LOCK_CLASS = 19780;
const MIGRATION_LOCK_ID = 0;

export interface MigrateResult {
  from: number;
  to: number;
  applied: number[];
}

export async function migrate(pool: pg.Pool, migrations: TeamMigration[] = teamMigrations): Promise<MigrateResult> {
  const latest = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const client = await pool.connect().catch((e: unknown) => {
    throw translatePgError(e, 'migrate the team database', poolLogin(pool));
  });
  let broken: Error | undefined;
  const step = async <T>(fn: () => Promise<T>): Promise<T> => {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, MIGRATION_LOCK_ID]);
      const result = await fn();
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
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
  try {
    const from = await step(async () => {
      await client.query('CREATE SCHEMA IF NOT EXISTS team');
      await client.query(`CREATE TABLE IF NOT EXISTS team.schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        applied_by name NOT NULL DEFAULT session_user
      )`);
      return version();
    });
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (m.version <= from) continue;
      await step(async () => {
        if (m.version <= (await version())) return; // applied meanwhile by another process
        try {
          await client.query(m.sql);
        } catch (e) {
          throw new TeamError(
            `team migration ${m.version} (${m.name}) failed: ${(e as Error).message}`,
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
  } catch (e) {
    throw translatePgError(e, 'migrate the team database', poolLogin(pool));
  } finally {
    client.release(broken);
  }
}
