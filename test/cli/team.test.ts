// End to end: the real CLI (node --import tsx main/cli/main.ts) against a real PostgreSQL database of
// this file's own: `team init` as the superuser, then `team operators ...` signed in as the admin it
// made. Passwords travel on standard input or in the environment, never in argv.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { teamMigrations } from '../../main/team/migrations/index.js';
import { appendEvents } from '../../main/team/events.js';
import { openTeamPool } from '../../main/team/pool.js';
import { history } from '../team/new-desk.js';

let dataDir: string;

const cli = (args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) =>
  runCli(['--data-dir', dataDir, ...args], opts);

let db: TestDatabase;
// Logins are cluster-wide and the server is shared by the run: this file's logins get a suffix.
const suffix = crypto.randomBytes(3).toString('hex');
const adminLogin = `boss_${suffix}`;
const adminPassword = 'boss password 1234';
const supportLogin = `sam_${suffix}`;
const supportPassword = 'sam password 12345';
let ownerUrl: string; // the superuser, without its password
let adminUrl: string;
let supportUrl: string;
let superPassword: string;

beforeAll(async () => {
  dataDir = tempDir('md-cli-team-');
  db = await createTestDatabase();
  const s = db.server;
  superPassword = s.password;
  ownerUrl = `postgres://${s.superuser}@${s.host}:${s.port}/${db.name}`;
  adminUrl = `postgres://${adminLogin}@${s.host}:${s.port}/${db.name}`;
  supportUrl = `postgres://${supportLogin}@${s.host}:${s.port}/${db.name}`;
});
afterAll(async () => {
  await db?.drop();
});

const asAdmin = (args: string[], stdin = `${adminPassword}\n`) =>
  cli(['team', 'operators', ...args, '--database', adminUrl], { stdin });

// Each run spawns node with tsx (about 2 s on a shared machine): the longer stories need more than the default.
describe('merchant-desk team', { timeout: 120_000 }, () => {
  it('refuses a password in argv, in the URL or as an option, before connecting', async () => {
    const inOption = await cli(['team', 'init', '--database', ownerUrl, '--admin', adminLogin, '--password', 'x']);
    expect(inOption.code).toBe(2);
    expect(inOption.stderr).toMatch(/passwords are never taken from arguments/);
    const inEquals = await cli(['team', 'operators', 'add', '--database', adminUrl, '--new-password=abc']);
    expect(inEquals.code).toBe(2);
    expect(inEquals.stderr).toMatch(/passwords are never taken from arguments/);
    const inUrl = await cli(['team', 'init', '--database', db.adminUrl, '--admin', adminLogin]);
    expect(inUrl.code).toBe(2);
    expect(inUrl.stderr).toMatch(/--database: a password may not be given in the URL .*; give it in PGPASSWORD/);
    expect(inUrl.stderr).not.toContain(superPassword);
  });

  it('names the bad flag', async () => {
    const badLogin = await cli(['team', 'init', '--database', ownerUrl, '--admin', 'Not-A-Login']);
    expect(badLogin.code).toBe(2);
    expect(badLogin.stderr).toMatch(/--admin: must be 2 to 63 lower-case letters/);
    const noDb = await cli(['team', 'operators', 'list']);
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toMatch(/--database is required/);
    const badRole = await asAdmin(['role', '--login', supportLogin, '--role', 'boss']);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/--role must be one of support, finance, back_office, admin/);
    const unknown = await cli(['team', 'operators', 'fire', '--database', adminUrl]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/team operators needs one of list, add, disable, enable, role, password/);
  });

  it('init migrates and adds the first admin; run again, it says what already existed', async () => {
    const first = await cli(['team', 'init', '--database', ownerUrl, '--admin', adminLogin, '--name', 'The Boss'], {
      stdin: `${superPassword}\n${adminPassword}\n`,
    });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`(migrations ${teamMigrations.map((m) => m.version).join(', ')})`);
    expect(first.stdout).toMatch(/created the team schema in md_test_\w+ \(migrations /);
    expect(first.stdout).toContain(`added the admin operator ${adminLogin} (The Boss)`);

    // The environment works as well as standard input; nothing new is asked for.
    const again = await cli(['team', 'init', '--database', ownerUrl, '--admin', adminLogin], {
      env: { PGPASSWORD: superPassword },
    });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`already at version ${Math.max(...teamMigrations.map((m) => m.version))}`);
    expect(again.stdout).toContain(`operator ${adminLogin} already exists (admin); left as it is`);
  });

  it('a wrong sign-in password is refused in plain words', async () => {
    const r = await asAdmin(['list'], 'not the password\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sign-in refused: wrong password or no such login/);
    const none = await asAdmin(['list'], '');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no password to sign in as boss_\w+/);
  });

  it('the admin adds, lists, re-roles, disables and enables an operator', async () => {
    const add = await asAdmin(
      ['add', '--login', supportLogin, '--role', 'support', '--name', 'Sam'],
      `${adminPassword}\n${supportPassword}\n`,
    );
    expect(add.stderr).toBe('');
    expect(add.stdout).toBe(`added ${supportLogin} (Sam) as support\n`);

    const short = await cli(
      [
        'team',
        'operators',
        'add',
        '--database',
        adminUrl,
        '--login',
        `x_${suffix}`,
        '--role',
        'finance',
        '--name',
        'X',
      ],
      { stdin: `${adminPassword}\n`, env: { MERCHANT_DESK_NEW_PASSWORD: 'short' } },
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/the new password must be at least 12 characters/);

    const list = await asAdmin(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^LOGIN\s+ROLE\s+NAME\s+STATUS\n/);
    expect(list.stdout).toMatch(new RegExp(`${supportLogin}\\s+support\\s+Sam\\s+enabled`));

    const role = await asAdmin(['role', '--login', supportLogin, '--role', 'finance']);
    expect(role.stdout).toBe(`${supportLogin} is now finance (their desk follows within seconds)\n`);

    const disable = await asAdmin(['disable', '--login', supportLogin]);
    expect(disable.code).toBe(0);
    const json = await asAdmin(['list', '--json']);
    const rows = JSON.parse(json.stdout) as { login: string; role: string; enabled: boolean; disabledAt: string }[];
    const sam = rows.find((r) => r.login === supportLogin)!;
    expect(sam).toMatchObject({ role: 'finance', enabled: false });
    expect(Date.parse(sam.disabledAt)).toBeGreaterThan(0);
    expect(rows.find((r) => r.login === adminLogin)).toMatchObject({ role: 'admin', enabled: true });

    // A disabled operator cannot sign in.
    const signIn = await cli(['team', 'operators', 'list', '--database', supportUrl], {
      stdin: `${supportPassword}\n`,
    });
    expect(signIn.code).toBe(1);
    expect(signIn.stderr).toMatch(/is disabled; ask an admin/);

    expect((await asAdmin(['enable', '--login', supportLogin])).stdout).toBe(
      `enabled ${supportLogin}: they can sign in again\n`,
    );
    const newPassword = 'sam new password 1';
    const pw = await asAdmin(['password', '--login', supportLogin], `${adminPassword}\n${newPassword}\n`);
    expect(pw.stdout).toBe(`set a new password for ${supportLogin}\n`);
    const withNew = await cli(['team', 'operators', 'list', '--database', supportUrl], { stdin: `${newPassword}\n` });
    expect(withNew.code).toBe(0);
  });

  it('PostgreSQL refusals come back in plain words: unknown login, last admin, a non-admin', async () => {
    const unknown = await asAdmin(['disable', '--login', `nobody_${suffix}`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--login: no operator 'nobody_\w+' in this team/);

    const last = await asAdmin(['disable', '--login', adminLogin]);
    expect(last.code).toBe(1);
    expect(last.stderr).toMatch(/--login: boss_\w+ is the last enabled admin; add another admin first/);

    const refused = await cli(
      ['team', 'operators', 'role', '--database', supportUrl, '--login', supportLogin, '--role', 'admin'],
      {
        env: { PGPASSWORD: 'sam new password 1' },
      },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `merchant-desk: only an admin can manage operators: ${supportLogin} (finance) is not an admin, so could not change operator roles\n`,
    );
    const stillFinance = await asAdmin(['list', '--json']);
    expect(
      (JSON.parse(stillFinance.stdout) as { login: string; role: string }[]).find((r) => r.login === supportLogin)
        ?.role,
    ).toBe('finance');
  });

  it('team snapshot publishes as the signed-in login, says what, and is refused in plain words', async () => {
    const empty = await cli(['team', 'snapshot', '--database', adminUrl], { stdin: `${adminPassword}\n` });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/the team record has no events yet: there is nothing to snapshot/);

    const owner = openTeamPool(db.adminUrl);
    try {
      await appendEvents(owner, history(40, `MD-CLISNAP-${suffix}`, 5));
    } finally {
      await owner.end();
    }
    // sam is finance by now: allowed to read the record, not to publish it.
    const refused = await cli(['team', 'snapshot', '--database', supportUrl], {
      env: { PGPASSWORD: 'sam new password 1' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`${supportLogin} may not publish a team snapshot: permission denied for table snapshots`),
    );

    const made = await cli(['team', 'snapshot', '--database', adminUrl], { stdin: `${adminPassword}\n` });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(
      new RegExp(
        `^published a snapshot of the record up to seq \\d+ \\(\\d+ events, \\d+ collections, [\\d.]+ MiB\\) as ${adminLogin} in [\\d.]+ s; older snapshots were removed\n$`,
      ),
    );
  });
});
