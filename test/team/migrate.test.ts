import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../main/team/migrate.js';
import { appendEvents, type NewTeamEvent } from '../../main/team/events.js';
import { addOperator, disableOperator } from '../../main/operations/operators.js';
import { listOperators } from '../../main/team/operators.js';
import { teamMigrations } from '../../main/team/migrations/index.js';
import { openTeamPool } from '../../main/team/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import { appendEventsBeforeEvidence } from './fixture.js';

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
    const latest = Math.max(...teamMigrations.map((m) => m.version));
    // Exactly one of the racers applied each migration; the others waited on the lock and skipped it.
    expect(results.flatMap((r) => r.applied).sort((a, b) => a - b)).toEqual(teamMigrations.map((m) => m.version));
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
    expect(left.rows[0]).toEqual({ t: null, v: Math.max(...teamMigrations.map((m) => m.version)) });
  });
});

describe('the migration lock', () => {
  it('is not one any login can take: a support login holding the advisory lock the migrations once used stalls nothing, and cannot lock the migrations itself', async () => {
    const p = pool();
    await migrate(p);
    const login = `lockhold_${process.pid}_${Date.now().toString(36)}`;
    await addOperator({ pool: p }, { login, role: 'support', password: 'lock holder password', displayName: 'Holder' });
    const holder = new pg.Client({ connectionString: db.urlFor(login, 'lock holder password') });
    await holder.connect();
    try {
      // Any login may take any advisory lock (19780 is the class the migrations took, 0 their id).
      await holder.query('SELECT pg_advisory_lock(19780, 0)');
      const stalled = new Promise<'stalled'>((r) => setTimeout(() => r('stalled'), 5_000).unref());
      const latest = Math.max(...teamMigrations.map((m) => m.version));
      expect(await Promise.race([migrate(pool()), stalled])).toEqual({ from: latest, to: latest, applied: [] });

      // The lock the migrations take now is a table only its owner may lock.
      await holder.query('BEGIN');
      await expect(holder.query('LOCK TABLE team.migration_turn IN EXCLUSIVE MODE')).rejects.toMatchObject({
        code: '42501',
      });
      await holder.query('ROLLBACK');
      await holder.query('BEGIN');
      await expect(holder.query('LOCK TABLE team.migration_turn IN ACCESS SHARE MODE')).rejects.toMatchObject({
        code: '42501',
      });
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
  });
});

describe('a team database at version 7', () => {
  it('migrates to the newest (8: writer turns) with its operators and events, and then works as a new one does', async () => {
    const old = await createTestDatabase();
    const p = openTeamPool(old.adminUrl);
    pools.push(p);
    try {
      expect(
        (
          await migrate(
            p,
            teamMigrations.filter((m) => m.version <= 7),
          )
        ).to,
      ).toBe(7);
      const suffix = `${process.pid}_${Date.now().toString(36)}`;
      const op = (role: 'support' | 'receiver' | 'admin') => ({
        login: `v7_${role}_${suffix}`,
        role,
        password: `${role} password for v7`,
        displayName: role,
      });
      for (const role of ['admin', 'support', 'receiver'] as const) await addOperator({ pool: p }, op(role));
      const as = (role: 'support' | 'receiver' | 'admin') => {
        const pool = openTeamPool(old.urlFor(op(role).login, op(role).password));
        pools.push(pool);
        return pool;
      };
      const event = (key: string): NewTeamEvent => ({
        eventKey: key,
        merchantReference: key,
        source: 'initiate',
        kind: 'initialize_accepted',
        signature: 'not_applicable',
        occurredAt: Date.UTC(2026, 10, 1),
      });
      // As a desk of version 7 wrote it (no evidence column yet).
      await appendEventsBeforeEvidence(as('support'), [event('v7-before')]);
      const write = (key: string) => appendEvents(as('support'), [event(key)]);
      await as('receiver').query('SELECT event_key FROM team.events'); // as 7 allowed

      const newest = teamMigrations[teamMigrations.length - 1]!.version;
      expect(await migrate(p)).toEqual({
        from: 7,
        to: newest,
        applied: teamMigrations.filter((m) => m.version > 7).map((m) => m.version),
      });
      await expect(as('receiver').query('SELECT event_key FROM team.events')).rejects.toMatchObject({ code: '42501' });
      expect((await write('v8-after')).stored).toHaveLength(1);
      await disableOperator({ pool: as('admin') }, op('support').login);
      await expect(write('v8-disabled')).rejects.toThrow(/is disabled/);
      const keys = await p.query('SELECT event_key FROM team.events ORDER BY seq');
      expect(keys.rows.map((r) => r.event_key)).toEqual(['v7-before', 'v8-after']);
    } finally {
      await p.end();
      pools.splice(pools.indexOf(p), 1);
      await old.drop();
    }
  });
});

// Roles belong to the whole server, so these run on a server of their own, fresh, in order.
describe('team migrations on a fresh server', () => {
  let server: PgServerInfo;
  const local: pg.Pool[] = [];
  const open = (database: string, login?: string, password?: string) => {
    const p = openTeamPool(serverUrl(server, database, login, password));
    local.push(p);
    return p;
  };
  const createDatabase = async (sql: string) => {
    const setup = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
    await setup.connect();
    try {
      await setup.query(sql);
    } finally {
      await setup.end();
    }
  };

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await Promise.all(local.map((p) => p.end()));
    if (server) stopServerSync(server.dir, server.binDir);
  });

  it('two team databases migrate at once, racing for the roles the server shares', async () => {
    await createDatabase('CREATE DATABASE team_a');
    await createDatabase('CREATE DATABASE team_b');
    const results = await Promise.all(['team_a', 'team_a', 'team_b', 'team_b'].map((name) => migrate(open(name))));
    expect(results.flatMap((r) => r.applied)).toHaveLength(2 * teamMigrations.length);
    const groups = await open('team_a').query(
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
  });

  it('a database owner with CREATEROLE, not a superuser, migrates and adds the first admin', async () => {
    await createDatabase(`CREATE ROLE team_owner LOGIN CREATEROLE PASSWORD 'owner-password-1'`);
    await createDatabase('CREATE DATABASE team_c OWNER team_owner');
    const owner = open('team_c', 'team_owner', 'owner-password-1');
    expect((await migrate(owner)).applied).toEqual(teamMigrations.map((m) => m.version));
    await addOperator(
      { pool: owner },
      {
        login: 'first_admin',
        role: 'admin',
        password: 'first admin password',
        displayName: 'First',
      },
    );
    const admin = open('team_c', 'first_admin', 'first admin password');
    await addOperator(
      { pool: admin },
      {
        login: 'first_support',
        role: 'support',
        password: 'first support password',
        displayName: 'S',
      },
    );
    expect((await listOperators(admin)).map((o) => [o.login, o.role])).toEqual([
      ['first_admin', 'admin'],
      ['first_support', 'support'],
    ]);
  });

  it('refuses to take a role that can sign in for a group, keeps the migrations before, and resumes', async () => {
    await createDatabase('CREATE DATABASE team_d');
    const su = open('team_d');
    await su.query('ALTER ROLE finance LOGIN');
    try {
      await expect(migrate(su)).rejects.toThrow(/a role named finance already exists and can sign in/);
      // The roles migration rolled back whole; the one before it stands.
      const left = await su.query('SELECT max(version)::int AS v FROM team.schema_migrations');
      expect(left.rows[0].v).toBe(1);
    } finally {
      await su.query('ALTER ROLE finance NOLOGIN');
    }
    expect((await migrate(su)).applied).toEqual(teamMigrations.filter((m) => m.version > 1).map((m) => m.version));
  });
});
