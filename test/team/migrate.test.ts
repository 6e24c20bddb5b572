import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../main/team/migrate.js';
import { teamMigrations } from '../../main/team/migrations/index.js';
import { openTeamPool } from '../../main/team/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { serverUrl, startServer, stopServerSync } from '../support/postgres-server.js';

let db: TestDatabase;
const pools: pg.Pool[] = [];
const pool = () => {
  const p = openTeamPool(db.adminUrl);
  pools.push(p);
  return p;
};

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db?.drop();
});

describe('team migrations', () => {
  it('run concurrently from several processes once each, then find nothing to do', async () => {
    const results = await Promise.all([migrate(pool()), migrate(pool()), migrate(pool())]);
    const latest = teamMigrations.length;
    // Exactly one of the racers applied each migration; the others waited on the lock and skipped it.
    expect(results.flatMap((r) => r.applied).sort()).toEqual(teamMigrations.map((m) => m.version));
    for (const r of results) expect(r.to).toBe(latest);

    const again = await migrate(pool());
    expect(again).toEqual({ from: latest, to: latest, applied: [] });

    const rows = await pool().query<{ version: number; name: string }>(
      'SELECT version, name FROM team.schema_migrations ORDER BY version',
    );
    expect(rows.rows).toEqual(teamMigrations.map((m) => ({ version: m.version, name: m.name })));
  });

  it('refuses a database newer than the app', async () => {
    const p = pool();
    await p.query(`INSERT INTO team.schema_migrations (version, name) VALUES (999, 'from-the-future')`);
    try {
      await expect(migrate(p)).rejects.toThrow(/schema version 999, newer than this app knows/);
    } finally {
      await p.query('DELETE FROM team.schema_migrations WHERE version = 999');
    }
  });

  it('rolls back a failing migration whole and records nothing for it', async () => {
    const p = pool();
    const broken = [
      ...teamMigrations,
      { version: 100, name: 'broken', sql: 'CREATE TABLE team.half_done (id int); SELECT 1/0;' },
    ];
    await expect(migrate(p, broken)).rejects.toThrow(/team migration 100 \(broken\) failed: division by zero/);
    const left = await p.query(
      `SELECT to_regclass('team.half_done') AS t, (SELECT max(version) FROM team.schema_migrations) AS v`,
    );
    expect(left.rows[0]).toEqual({ t: null, v: teamMigrations.length });
  });

  it('two team databases on a fresh server migrate at once (the groups are shared by the cluster)', async () => {
    const server = await startServer();
    const local: pg.Pool[] = [];
    try {
      const setup = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
      await setup.connect();
      await setup.query('CREATE DATABASE team_a');
      await setup.query('CREATE DATABASE team_b');
      await setup.end();
      for (const name of ['team_a', 'team_a', 'team_b', 'team_b']) local.push(openTeamPool(serverUrl(server, name)));
      // Both race to create the same cluster-wide roles and memberships.
      const results = await Promise.all(local.map((p) => migrate(p)));
      expect(results.flatMap((r) => r.applied)).toHaveLength(2 * teamMigrations.length);
      const groups = await local[0]!.query(
        `SELECT rolname, rolcanlogin, rolsuper FROM pg_roles
         WHERE rolname IN ('support', 'finance', 'back_office', 'admin', 'team_operator_admin') ORDER BY rolname`,
      );
      expect(groups.rows.map((r) => [r.rolname, r.rolcanlogin, r.rolsuper])).toEqual([
        ['admin', false, false],
        ['back_office', false, false],
        ['finance', false, false],
        ['support', false, false],
        ['team_operator_admin', false, false],
      ]);
    } finally {
      await Promise.all(local.map((p) => p.end()));
      stopServerSync(server.dir, server.binDir);
    }
  });

  it('refuses to turn an existing login of the same name into a group', async () => {
    const server = await startServer();
    const local = openTeamPool(serverUrl(server, 'postgres'));
    try {
      await local.query(`CREATE ROLE finance LOGIN PASSWORD 'x'`);
      await expect(migrate(local)).rejects.toThrow(/a role named finance already exists and can sign in/);
      // The roles migration rolled back whole; the one before it stands, and the next run resumes.
      const left = await local.query('SELECT max(version)::int AS v FROM team.schema_migrations');
      expect(left.rows[0].v).toBe(1);
      await local.query('ALTER ROLE finance RENAME TO finance_person');
      expect((await migrate(local)).applied).toEqual(teamMigrations.filter((m) => m.version > 1).map((m) => m.version));
    } finally {
      await local.end();
      stopServerSync(server.dir, server.binDir);
    }
  });
});
