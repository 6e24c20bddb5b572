import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../main/team/migrate.js';
import { teamMigrations } from '../../main/team/migrations/index.js';
import { openTeamPool } from '../../main/team/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

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
});
