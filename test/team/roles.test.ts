// Who may do what is decided by PostgreSQL, so every check here goes through a real login and, where
// it matters, is confirmed by reading the database as its owner.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TeamFieldError, TeamPermissionError, TeamSignInError } from '../../main/team/errors.js';
import { appendEvents, pullSince } from '../../main/team/events.js';
import { createIntent } from '../../main/team/intents.js';
import { currentOperator, listOperators } from '../../main/team/operators.js';
import {
  addOperator,
  changeOwnPassword,
  disableOperator,
  enableOperator,
  setOperatorPassword,
  setOperatorRole,
} from '../../main/operations/operators.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
let admin: string;
let support: string;
let finance: string;
let backOffice: string;

beforeAll(async () => {
  team = await teamFixture();
  admin = await team.addOperator('admin');
  support = await team.addOperator('support');
  finance = await team.addOperator('finance');
  backOffice = await team.addOperator('back_office');
});
afterAll(async () => {
  await team?.close();
});

const resolution = () =>
  event({
    source: 'manual',
    kind: 'resolution',
    status: null,
    amountMinor: null,
    currency: null,
    note: 'matched by hand',
  });
const intent = (merchantReference: string) => ({
  merchantReference,
  amountMinor: 5000,
  currency: 'NGN',
  description: 'x',
});
const eventCount = async () => Number((await team.owner.query('SELECT count(*) AS n FROM team.events')).rows[0].n);

describe('support', () => {
  it('charges: creates intents and writes initiate and redirect events', async () => {
    const pool = team.signIn(support);
    await createIntent(pool, intent('MD-ROLE-S1'));
    const r = await appendEvents(pool, [
      event({ merchantReference: 'MD-ROLE-S1' }),
      event({ source: 'redirect', signature: 'verified' }),
    ]);
    expect(r.stored).toHaveLength(2);
  });

  it('cannot resolve exceptions, write callbacks, or manage operators', async () => {
    const pool = team.signIn(support);
    const before = await eventCount();
    const refused = appendEvents(pool, [resolution()]);
    await expect(refused).rejects.toThrow(TeamPermissionError);
    await expect(appendEvents(pool, [resolution()])).rejects.toThrow(
      new RegExp(`^${support} may not append events: new row violates row-level security policy`),
    );
    await expect(appendEvents(pool, [event({ source: 'callback', signature: 'verified' })])).rejects.toThrow(
      TeamPermissionError,
    );
    expect(await eventCount()).toBe(before);

    await expect(
      addOperator({ pool }, { login: 'mallory_x1', role: 'admin', password: 'a-long-password-1', displayName: 'M' }),
    ).rejects.toThrow(TeamPermissionError);
    await expect(disableOperator({ pool }, admin)).rejects.toThrow(TeamPermissionError);
    await expect(setOperatorRole({ pool }, support, 'admin')).rejects.toThrow(TeamPermissionError);
    // Not through the functions' SQL either, nor the tables behind them.
    await expect(pool.query(`SELECT team.set_operator_role($1, 'admin')`, [support])).rejects.toThrow(
      /permission denied for function/,
    );
    await expect(pool.query(`UPDATE team.operators SET role = 'admin' WHERE login = $1`, [support])).rejects.toThrow(
      /permission denied/,
    );
    await expect(pool.query(`ALTER ROLE ${support} CREATEROLE`)).rejects.toThrow(/permission denied/);
    const row = await team.owner.query('SELECT role FROM team.operators WHERE login = $1', [support]);
    expect(row.rows[0].role).toBe('support');
    const membership = await team.owner.query(`SELECT pg_has_role($1, 'admin', 'MEMBER') AS is_admin`, [support]);
    expect(membership.rows[0].is_admin).toBe(false);
  });
});

describe('finance', () => {
  it('reads everything and records balance snapshots, but cannot charge or resolve', async () => {
    const pool = team.signIn(finance);
    expect((await pullSince(pool, 0, 10)).events.length).toBeGreaterThan(0);
    await pool.query(`INSERT INTO team.balance_snapshots (observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
      VALUES (now(), 'NGN', 'COLLECTION', 100, 120, 20, 0)`);
    await expect(createIntent(pool, intent('MD-ROLE-F1'))).rejects.toThrow(TeamPermissionError);
    await expect(createIntent(pool, intent('MD-ROLE-F1'))).rejects.toThrow(
      new RegExp(`^${finance} may not create an intent: permission denied`),
    );
    await expect(appendEvents(pool, [event()])).rejects.toThrow(TeamPermissionError);
    await expect(appendEvents(pool, [resolution()])).rejects.toThrow(TeamPermissionError);
    const held = await team.owner.query(
      `SELECT count(*)::int AS n FROM team.intents WHERE merchant_reference = 'MD-ROLE-F1'`,
    );
    expect(held.rows[0].n).toBe(0);
  });
});

describe('back office', () => {
  it('resolves and records callbacks, but does not charge', async () => {
    const pool = team.signIn(backOffice);
    const r = await appendEvents(pool, [
      resolution(),
      event({ source: 'callback', kind: 'outcome', status: 'COMPLETED', signature: 'verified' }),
    ]);
    expect(r.stored).toHaveLength(2);
    await expect(createIntent(pool, intent('MD-ROLE-B1'))).rejects.toThrow(TeamPermissionError);
    await expect(appendEvents(pool, [event({ source: 'initiate' })])).rejects.toThrow(TeamPermissionError);
  });
});

describe('actor', () => {
  it('is the signed-in login on every row, whoever writes, and nobody can name another', async () => {
    const mine = event();
    await appendEvents(team.signIn(support), [mine]);
    const stored = await team.owner.query('SELECT actor FROM team.events WHERE event_key = $1', [mine.eventKey]);
    expect(stored.rows[0].actor).toBe(support);

    const insertAs = (actor: string) =>
      `INSERT INTO team.events (event_key, merchant_reference, source, kind, signature, occurred_at, actor)
       VALUES ('spoof:${actor}:' || gen_random_uuid(), 'MD-SPOOF', 'initiate', 'initialize_accepted', 'not_applicable', now(), '${actor}')`;
    // Operators may not even name the column.
    for (const login of [support, backOffice, admin]) {
      const pool = team.signIn(login);
      await expect(pool.query(insertAs(finance))).rejects.toThrow(/permission denied for table events/);
      await expect(pool.query(insertAs(login))).rejects.toThrow(/permission denied for table events/);
      await expect(
        pool.query(
          `INSERT INTO team.intents (merchant_reference, amount_minor, currency, description, created_by) VALUES ('MD-SPOOF-I', 1, 'NGN', '', $1)`,
          [finance],
        ),
      ).rejects.toThrow(/permission denied for table intents/);
    }
    // SET ROLE to the group changes current_user, not the login the row records.
    const client = new pg.Client({ connectionString: team.db.urlFor(support, team.password(support)) });
    await client.connect();
    try {
      await client.query('SET ROLE support');
      const e = event();
      await appendEvents(client, [e]);
      const row = await team.owner.query('SELECT actor FROM team.events WHERE event_key = $1', [e.eventKey]);
      expect(row.rows[0].actor).toBe(support);
    } finally {
      await client.end();
    }
    // Not even the owner (a superuser here) can write a row in another's name.
    await expect(team.owner.query(insertAs(support))).rejects.toThrow(
      /actor is set by the database from the signed-in login/,
    );
    const spoofed = await team.owner.query(
      `SELECT count(*)::int AS n FROM team.events WHERE merchant_reference = 'MD-SPOOF'`,
    );
    expect(spoofed.rows[0].n).toBe(0);
    const spoofedIntent = await team.owner.query(
      `SELECT count(*)::int AS n FROM team.intents WHERE merchant_reference = 'MD-SPOOF-I'`,
    );
    expect(spoofedIntent.rows[0].n).toBe(0);
  });
});

describe('operators', () => {
  it('sign in with SCRAM: the server keeps a verifier, never the password, and a wrong password is refused', async () => {
    const verifier = await team.owner.query('SELECT rolpassword FROM pg_authid WHERE rolname = $1', [support]);
    expect(verifier.rows[0].rolpassword).toMatch(
      /^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/,
    );
    expect(verifier.rows[0].rolpassword).not.toContain(team.password(support));
    await expect(pullSince(team.signIn(support, 'not-the-password'), 0, 1)).rejects.toThrow(TeamSignInError);
    await expect(pullSince(team.signIn(support, 'not-the-password'), 0, 1)).rejects.toThrow(
      /wrong password or no such login/,
    );
    // Plain text is refused by the function itself, whoever calls it.
    await expect(
      team.signIn(admin).query(`SELECT team.add_operator('plain_${Date.now()}', 'support', 'hunter2hunter2', 'P')`),
    ).rejects.toThrow(/SCRAM-SHA-256 verifier/);
  });

  it('an admin manages operators without being a superuser', async () => {
    const roles = await team.owner.query(
      `SELECT r.rolname, r.rolsuper, r.rolcreaterole FROM pg_roles r WHERE r.rolname IN ($1, 'team_operator_admin') ORDER BY r.rolname`,
      [admin],
    );
    expect(roles.rows.every((r) => !r.rolsuper)).toBe(true);
    // No SECURITY DEFINER function runs as a superuser: the operator functions as team_operator_admin, the
    // stamping and key-check functions as team_record_keeper (migration 8), both NOLOGIN and not superusers.
    const owners = await team.owner.query(
      `SELECT DISTINCT pg_get_userbyid(p.proowner) AS owner, r.rolsuper FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner
       WHERE p.prosecdef AND p.pronamespace = 'team'::regnamespace ORDER BY 1`,
    );
    expect(owners.rows).toEqual([
      { owner: 'team_operator_admin', rolsuper: false },
      { owner: 'team_record_keeper', rolsuper: false },
    ]);

    const pool = team.signIn(admin);
    const login = `carol_${Date.now().toString(36)}`;
    await addOperator({ pool }, { login, role: 'support', password: 'correct horse battery', displayName: 'Carol' });
    const carol = team.signIn(login, 'correct horse battery');
    expect(await currentOperator(carol)).toMatchObject({
      login,
      role: 'support',
      displayName: 'Carol',
      disabledAt: null,
      createdBy: admin,
    });
    expect((await listOperators(carol)).map((o) => o.login)).toContain(admin);

    // Re-role: from the next transaction Carol resolves and no longer charges.
    await setOperatorRole({ pool }, login, 'back_office');
    await appendEvents(carol, [resolution()]);
    await expect(createIntent(carol, intent('MD-ROLE-C1'))).rejects.toThrow(TeamPermissionError);
    const groups = await team.owner.query(
      `SELECT pg_has_role($1, 'support', 'MEMBER') AS support, pg_has_role($1, 'back_office', 'MEMBER') AS back_office`,
      [login],
    );
    expect(groups.rows[0]).toEqual({ support: false, back_office: true });

    await changeOwnPassword({ pool: carol }, 'carol chose this one');
    await expect(pullSince(team.signIn(login, 'correct horse battery'), 0, 1)).rejects.toThrow(TeamSignInError);
    const stored = await team.owner.query('SELECT rolpassword FROM pg_authid WHERE rolname = $1', [login]);
    expect(stored.rows[0].rolpassword).toMatch(/^SCRAM-SHA-256\$4096:/);
    await pullSince(team.signIn(login, 'carol chose this one'), 0, 1);

    await setOperatorPassword({ pool }, login, 'a brand new passphrase');
    await expect(pullSince(team.signIn(login, 'carol chose this one'), 0, 1)).rejects.toThrow(TeamSignInError);
    await pullSince(team.signIn(login, 'a brand new passphrase'), 0, 1);

    await expect(
      addOperator({ pool }, { login, role: 'support', password: 'whatever-long-1', displayName: 'Again' }),
    ).rejects.toMatchObject({
      name: 'TeamFieldError',
      field: 'login',
      message: `login: '${login}' already exists on this server; choose another login`,
    });
  });

  it('a disabled operator cannot sign in, and their open session ends', async () => {
    const pool = team.signIn(admin);
    const login = await team.addOperator('support', 'dave');
    const open = new pg.Client({ connectionString: team.db.urlFor(login, team.password(login)) });
    open.on('error', () => undefined);
    await open.connect();
    await open.query('SELECT 1');

    await disableOperator({ pool }, login);
    await expect(pullSince(team.signIn(login), 0, 1)).rejects.toThrow(TeamSignInError);
    await expect(pullSince(team.signIn(login), 0, 1)).rejects.toThrow(/is disabled; ask an admin/);
    await expect(open.query('SELECT 1')).rejects.toThrow();
    await open.end().catch(() => undefined);
    const row = await team.owner.query(
      'SELECT disabled_at IS NOT NULL AS disabled, changed_by FROM team.operators WHERE login = $1',
      [login],
    );
    expect(row.rows[0]).toEqual({ disabled: true, changed_by: admin });

    await enableOperator({ pool }, login);
    await pullSince(team.signIn(login), 0, 1);
  });

  it('admin functions touch only team operators, and never leave the team without an admin', async () => {
    const pool = team.signIn(admin);
    await expect(disableOperator({ pool }, 'postgres')).rejects.toThrow(TeamFieldError);
    await expect(disableOperator({ pool }, 'postgres')).rejects.toMatchObject({
      field: 'login',
      message: `login: no operator 'postgres' in this team`,
    });
    await expect(setOperatorRole({ pool }, 'support', 'admin')).rejects.toThrow(
      /^login: no operator 'support' in this team/,
    );
    await expect(disableOperator({ pool }, admin)).rejects.toThrow(
      /^login: .* is the last enabled admin; add another admin first/,
    );
    await expect(setOperatorRole({ pool }, admin, 'finance')).rejects.toThrow(/last enabled admin/);
    await expect(setOperatorRole({ pool }, support, 'superuser' as never)).rejects.toThrow(/^role: must be one of/);
    await expect(
      addOperator({ pool }, { login: 'pg_evil', role: 'support', password: 'long enough pass', displayName: 'E' }),
    ).rejects.toThrow(/^login: /);
    await expect(
      addOperator({ pool }, { login: 'short_pw', role: 'support', password: 'short', displayName: 'E' }),
    ).rejects.toThrow(/^password: must be at least 12/);

    const second = await team.addOperator('admin', 'erin');
    await disableOperator({ pool: team.signIn(second) }, admin);
    await expect(pullSince(team.signIn(admin), 0, 1)).rejects.toThrow(TeamSignInError);
    await enableOperator({ pool: team.signIn(second) }, admin);
  });
});
