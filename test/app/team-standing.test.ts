// A signed-in team desk follows its operator's row in the team database (issue 28, problem 5), on real
// parts: a migrated PostgreSQL with operators, the desk's team link (app/team.ts: its sign-in, session,
// sync and listener) on a real SQLite file. An admin's role change reaches the desk when it commits
// (NOTIFY team_operators, team migration 14), and when that notification is lost (its trigger switched
// off: the fault injected) the periodic re-read brings it; a refusal by role names the role the database
// holds now; a disable ends the session saying an admin disabled the login.
import path from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTeamLink, type TeamLink } from '../../main/app/team.js';
import { createEventBus, type AppEventName } from '../../main/app/event-bus.js';
import { systemClock } from '../../main/clock.js';
import { silentLogger } from '../../main/log/index.js';
import { MemoryAppSecret } from '../../main/secrets/app-secret.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { addOperator, disableOperator, setOperatorRole } from '../../main/operations/operators.js';
import type { TeamRole } from '../../main/team/roles.shared.js';
import { tempDir } from '../support/tmp.js';
import { teamFixture, type TeamFixture } from '../team/fixture.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

let team: TeamFixture;
let admin: { pool: pg.Pool };
let boss: string;
const open: { link: TeamLink; db: Db }[] = [];

beforeAll(async () => {
  team = await teamFixture();
  boss = await team.addOperator('admin', 'boss');
  admin = { pool: team.signIn(boss) };
});
afterEach(async () => {
  for (const d of open.splice(0)) {
    await d.link.close();
    d.db.close();
  }
});
afterAll(async () => {
  await team?.close();
});

/** The announcement lost: what a dropped notification looks like to a desk. */
async function withoutAnnouncements(fn: () => Promise<void>): Promise<void> {
  await team.owner.query('ALTER TABLE team.operators DISABLE TRIGGER operators_announce');
  try {
    await fn();
  } finally {
    await team.owner.query('ALTER TABLE team.operators ENABLE TRIGGER operators_announce');
  }
}

/** A desk signed in as a new operator of `role`; `standingEveryMs` 0: it re-reads its row only when told. */
async function signedInDesk(role: TeamRole, standingEveryMs: number) {
  const login = await team.addOperator(role);
  const db = openDatabase(path.join(tempDir('md-standing-'), 'merchant-desk.sqlite'));
  const events = createEventBus();
  const told: { event: AppEventName; payload: unknown }[] = [];
  events.subscribe((event, payload) => told.push({ event, payload }));
  let statusPushes = 0;
  const { host, port } = team.db.server;
  const link = createTeamLink({
    db,
    ledger,
    clock: systemClock,
    logger: silentLogger(),
    events,
    databaseUrl: `postgres://${host}:${port}/${team.db.name}`,
    login,
    onChange: () => statusPushes++,
    remembered: new MemoryAppSecret(),
    offlineCheck: new MemoryAppSecret(),
    standingEveryMs,
  });
  open.push({ link, db });
  expect(await link.unlocker.verify(team.password(login))).toBe(true);
  expect(link.state()).toMatchObject({ signedIn: true, role });
  await expect.poll(() => link.state().online, { timeout: 10_000 }).toBe(true);
  return {
    login,
    link,
    notices: () => told.filter((t) => t.event === 'notice').map((t) => (t.payload as { message: string }).message),
    operatorsChanged: () =>
      told.filter((t) => t.event === 'team.operatorsChanged').map((t) => (t.payload as { login: string | null }).login),
    signedOut: () => told.some((t) => t.event === 'team.signedOut'),
    statusPushes: () => statusPushes,
  };
}

/** A resolution of an orphan reference, as the Reconciliation screen records it team-first. */
const resolution = (login: string) => ({
  collectionId: null,
  merchantReference: `MD-STANDING-${process.pid}-${Date.now()}`,
  source: 'manual' as const,
  kind: 'resolution' as const,
  receivedAt: Date.now(),
  signature: 'not_applicable' as const,
  note: 'checked with the bank',
  actor: login,
});

describe('a signed-in team desk follows its operator', () => {
  it("an admin's role change reaches it when the change commits: the role, the status bar, a notice naming who", async () => {
    const desk = await signedInDesk('support', 0); // no periodic re-read: only the announcement can bring it
    const pushesBefore = desk.statusPushes();
    await setOperatorRole(admin, desk.login, 'finance');
    await expect.poll(() => desk.link.state().role, { timeout: 5_000 }).toBe('finance');
    expect(desk.link.session()?.role).toBe('finance');
    expect(desk.statusPushes()).toBeGreaterThan(pushesBefore);
    expect(desk.notices()).toContain(
      `${boss} changed your role from support to finance: this desk now offers what finance may do.`,
    );
    // Every desk's open operator list is told, naming the login.
    expect(desk.operatorsChanged()).toContain(desk.login);

    await setOperatorRole(admin, desk.login, 'back_office');
    await expect.poll(() => desk.link.state().role, { timeout: 5_000 }).toBe('back_office');
  });

  it('the announcement lost: the periodic re-read brings the role', async () => {
    const desk = await signedInDesk('support', 300);
    await withoutAnnouncements(async () => {
      await setOperatorRole(admin, desk.login, 'finance');
      await expect.poll(() => desk.link.state().role, { timeout: 5_000 }).toBe('finance');
    });
    expect(desk.operatorsChanged()).not.toContain(desk.login); // it was the re-read, not the announcement
  });

  it('a refusal by role names the role the database holds now, not the one the desk last read', async () => {
    const desk = await signedInDesk('back_office', 0);
    await withoutAnnouncements(async () => {
      await setOperatorRole(admin, desk.login, 'support');
      expect(desk.link.state().role).toBe('back_office'); // unheard so far
      await expect(
        desk.link.recordFirst([resolution(desk.login)], { action: 'resolve exceptions', noun: 'resolution' }),
      ).rejects.toMatchObject({
        kind: 'forbidden',
        message: `${desk.login} (support) may not resolve exceptions: the team database refused it.`,
      });
    });
    // ... and the desk follows from there.
    expect(desk.link.state().role).toBe('support');
  });

  it("an operator change refused by role names the caller's role now", async () => {
    const demoted = await team.addOperator('admin', 'was_admin');
    const pool = team.signIn(demoted);
    await setOperatorRole(admin, demoted, 'finance');
    await expect(
      addOperator({ pool }, { login: 'never_added', role: 'support', password: 'never added 1234', displayName: 'N' }),
    ).rejects.toMatchObject({
      name: 'TeamPermissionError',
      message: `only an admin can manage operators: ${demoted} (finance) is not an admin, so could not add operators`,
    });
  });

  it('disabled by an admin: the session ends, and the desk says an admin disabled the login', async () => {
    const desk = await signedInDesk('support', 0);
    await disableOperator(admin, desk.login);
    await expect.poll(() => desk.signedOut(), { timeout: 10_000 }).toBe(true);
    expect(desk.link.session()).toBeNull();
    expect(desk.notices()).toContain(
      `An admin disabled the login ${desk.login}: this desk signed out, and ${desk.login} cannot sign in until an admin enables the login again.`,
    );
  });

  it('marked disabled while its sessions stay open (no right to end them): the re-read ends the session', async () => {
    const desk = await signedInDesk('support', 300);
    // As a disable by an operator admin without pg_signal_backend leaves it: the row says disabled, the
    // connections live on (their writes are refused by the database, migration 8).
    await team.owner.query('UPDATE team.operators SET disabled_at = now() WHERE login = $1', [desk.login]);
    await expect.poll(() => desk.signedOut(), { timeout: 10_000 }).toBe(true);
    expect(desk.link.session()).toBeNull();
    expect(desk.notices().join('\n')).toContain(`An admin disabled the login ${desk.login}`);
  });
});
