// What a team desk trusts, decided by the database, end to end (composeCore on team profiles, the
// sandbox over HTTP, a real PostgreSQL):
// - One charge per intent (issue 20, finding 5): before a desk sends anything to the service for an
//   EXISTING intent (a re-send of an UNKNOWN payment), PostgreSQL grants it a claim (team.claim_intent,
//   team migration 9): only to the intent's creator or an admin, one at a time.
// - Tamper evidence: a desk that re-checks the events' hash chain at sign-in raises the alarm in its
//   status when the superuser rewrote an event it had verified (team migration 10, team/sync/chain-check.ts).
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { composeCore, type Core } from '../../main/app/core.js';
import { silentLogger } from '../../main/log/index.js';
import { openProfileDatabase, updateSettings, writeActiveProfile } from '../../main/settings/index.js';
import { importServicePublicKey } from '../../main/settings/service-key.js';
import { forgetTeamKeys, storeTeamKeys } from './team-keychain.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { lockGate } from '../../main/ipc/lock-gate.js';
import type { PaymentWindowOpener } from '../../main/collections/payment-window.js';
import { claimIntent, ClaimRefusedError } from '../../main/team/claims.js';
import { recordEvents, recordIntent } from '../../main/team/record.js';
import { fileTempDir, tempDir } from '../support/tmp.js';
import { teamFixture, type TeamFixture } from '../team/fixture.js';
import { newIntent } from '../team/sync-desk.js';
import { CARDS, cardForm } from '../collections/harness.js';
import { until } from '../support/wait.js';

process.env.MERCHANT_DESK_KEYCHAIN_SERVICE = `merchant-desk-test-teamclaims-${process.pid}`;

let team: TeamFixture;
let sb: Sandbox;
let sandboxDir: string;
let deskUrl: string;
const cores: Core[] = [];
const logins: string[] = [];
/** Payment windows opened by any desk of this file (each is closed at once). */
let windowsOpened = 0;
const closingWindow: PaymentWindowOpener = {
  open() {
    windowsOpened++;
    return Promise.resolve({ kind: 'closed' });
  },
};

beforeAll(async () => {
  team = await teamFixture();
  sandboxDir = fileTempDir('md-team-claims-');
  sb = await startSandbox({ stateDir: sandboxDir, timeScale: 1000 });
  deskUrl = `postgres://${team.db.server.host}:${team.db.server.port}/${team.db.name}`;
  await storeTeamKeys(sb);
}, 120_000);

afterEach(async () => {
  while (cores.length) await cores.pop()!.close();
});

afterAll(async () => {
  await forgetTeamKeys(deskUrl, logins);
  await sb?.close();
  await team?.close();
});

async function operator(role: 'support' | 'back_office' | 'finance' | 'admin'): Promise<string> {
  const login = await team.addOperator(role);
  logins.push(login);
  return login;
}

/** A team desk signed in as `login`, with its dispatcher (the desk API every screen uses). */
async function desk(login: string, existing?: string) {
  const dataDir = existing ?? tempDir('md-team-claims-desk-');
  if (!existing) {
    const db = openProfileDatabase(dataDir, 'team');
    try {
      updateSettings(db, { profile: 'team', baseUrl: sb.baseUrl, teamDatabaseUrl: deskUrl, teamLogin: login });
      importServicePublicKey(db, dataDir, sb.servicePublicKeyPem);
    } finally {
      db.close();
    }
    writeActiveProfile(dataDir, 'team');
  }
  const core = await composeCore({
    dataDir,
    logger: silentLogger(),
    receiver: false,
    lock: { checkEveryMs: 0 },
    teamSyncEveryMs: 100,
    paymentWindow: closingWindow,
  });
  cores.push(core);
  await core.ready();
  await core.lock.unlock(team.password(login));
  const d = typedInvoke(createDispatcher(buildHandlers(core), core.logger, lockGate(core.lock)));
  return { core, d, dataDir };
}

const card = (cvv = '123') => ({
  number: CARDS.approve,
  expMonth: '12',
  expYear: '2031',
  cvv,
  firstName: 'Amina',
  lastName: 'Nakato',
});

/** Desk A charges; the initialize answer is lost after the sandbox made the payment: UNKNOWN. */
let amount = 25_000;
async function unknownPaymentOn(a: Core): Promise<string> {
  amount += 1_000; // another amount each time: the same card and amount within minutes asks to confirm
  sb.controls.clearFaults();
  sb.controls.addFault({ route: 'initialize', kind: 'drop_after_commit' });
  const r = await a.charges().charge(cardForm(CARDS.approve, { amount: String(amount) }));
  expect(r.outcome.kind).toBe('unknown');
  const ref = r.collection!.merchantReference;
  // Its outcome (UNKNOWN) recorded in the team database: the creation's claim is closed.
  await until('the UNKNOWN outcome is in the team record', async () => {
    const x = await team.owner.query(
      "SELECT 1 FROM team.events WHERE merchant_reference = $1 AND kind = 'initialize_unknown'",
      [ref],
    );
    return x.rowCount === 1;
  });
  return ref;
}

/** Counts the initialize requests the sandbox receives from here on (each takes one 1 ms latency). */
function countInitialize(): () => number {
  sb.controls.clearFaults();
  sb.controls.addFault({ route: 'initialize', kind: 'latency', latency_ms: 1, times: 100 });
  return () => 100 - (sb.controls.state().faults.find((f) => f.route === 'initialize')?.remaining ?? 100);
}

function localCopy(core: Core, ref: string) {
  return {
    collection: core.db.prepare('SELECT * FROM collections WHERE merchant_reference = ?').get(ref),
    events: core.db.prepare('SELECT * FROM collection_events WHERE merchant_reference = ? ORDER BY id').all(ref),
    total: core.db.prepare('SELECT count(*) FROM collection_events').pluck().get(),
  };
}

describe('a re-send needs the team database claim', () => {
  it("back office and another support login may not re-send desk A's UNKNOWN payment: refused naming who may, nothing sent, no window, nothing stored", async () => {
    const a = await operator('support');
    const deskA = await desk(a);
    const ref = await unknownPaymentOn(deskA.core);

    for (const role of ['back_office', 'support'] as const) {
      const other = await operator(role);
      const b = await desk(other);
      await until(`${role} desk has the payment`, () => {
        const row = b.core.db.prepare('SELECT status FROM collections WHERE merchant_reference = ?').get(ref) as
          { status: string } | undefined;
        return row?.status === 'UNKNOWN';
      });
      const before = localCopy(b.core, ref);
      const sent = countInitialize();
      const opened = windowsOpened;
      const r = await b.d('payments.resend', { reference: ref, card: card() });
      expect(r).toMatchObject({
        ok: false,
        error: {
          kind: 'forbidden',
          field: 'reference',
          message: `Only ${a}, who created payment ${ref}, or an admin may send it again; ${other} (${role.replace('_', ' ')}) may not. Nothing was sent.`,
        },
      });
      expect(sent()).toBe(0);
      expect(windowsOpened).toBe(opened);
      // Give a wrongly stored event time to show, then compare the whole local copy.
      await new Promise((res) => setTimeout(res, 300));
      expect(localCopy(b.core, ref)).toEqual(before);
      const claims = await team.owner.query('SELECT claimed_by FROM team.claims WHERE merchant_reference = $1', [ref]);
      expect(claims.rows).toEqual([{ claimed_by: a }]); // the creation's, nobody else's
    }
  });

  it('the creator may re-send; an admin may; while one claim is open a second is refused naming its holder', async () => {
    const a = await operator('support');
    const admin = await operator('admin');
    const deskA = await desk(a);
    const deskAdmin = await desk(admin);

    // The creator.
    const ref1 = await unknownPaymentOn(deskA.core);
    let sent = countInitialize();
    const r1 = await deskA.d('payments.resend', { reference: ref1, card: card('555') });
    expect(r1).toMatchObject({ ok: true, value: { outcome: { kind: 'window_closed' } } });
    expect(sent()).toBe(1);

    // An admin, for another desk's payment.
    const ref2 = await unknownPaymentOn(deskA.core);
    await until('the admin desk has it', () => !!localCopy(deskAdmin.core, ref2).collection);
    await until('the admin desk sees it UNKNOWN', () => {
      const c = localCopy(deskAdmin.core, ref2).collection as { status: string } | undefined;
      return c?.status === 'UNKNOWN';
    });
    sent = countInitialize();
    const r2 = await deskAdmin.d('payments.resend', { reference: ref2, card: card('556') });
    expect(r2).toMatchObject({ ok: true });
    expect(sent()).toBe(1);

    // Two at once: the admin holds a claim (taken straight from PostgreSQL); the creator's desk is refused.
    const ref3 = await unknownPaymentOn(deskA.core);
    const held = await claimIntent(team.signIn(admin), ref3);
    expect(held.claimedBy).toBe(admin);
    sent = countInitialize();
    const opened = windowsOpened;
    const before = localCopy(deskA.core, ref3);
    const r3 = await deskA.d('payments.resend', { reference: ref3, card: card('557') });
    expect(r3).toMatchObject({
      ok: false,
      error: {
        kind: 'conflict',
        message: expect.stringMatching(
          new RegExp(`^Payment ${ref3} is being sent by ${admin} since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: only one desk`),
        ),
      },
    });
    expect(sent()).toBe(0);
    expect(windowsOpened).toBe(opened);
    expect(localCopy(deskA.core, ref3)).toEqual(before);

    // The creator's own claim, held from before (this desk's process killed mid-send, or another window): the
    // refusal says it may be this desk before it stopped, and when the payment can be sent again.
    const ref4 = await unknownPaymentOn(deskA.core);
    const own = await claimIntent(team.signIn(a), ref4);
    sent = countInitialize();
    const r4 = await deskA.d('payments.resend', { reference: ref4, card: card('558') });
    const iso = '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z';
    expect(r4).toMatchObject({
      ok: false,
      error: {
        kind: 'conflict',
        message: expect.stringMatching(
          new RegExp(
            `^Payment ${ref4} is being sent by ${a}, this login, since ${iso}: at another desk or window, or at this desk before it was closed or lost power\\. ` +
              `Only one desk sends a payment at a time, so it can be sent again when that claim ends: as soon as its outcome is recorded, or at ${new Date(own.expiresAt).toISOString()} at the latest\\. Nothing was sent\\.$`,
          ),
        ),
      },
    });
    expect(sent()).toBe(0);
    sb.controls.clearFaults();
  });
});

/** The creator's charge ended with an unknown outcome, recorded by its desk: its creation's claim ends. */
function unknownOutcome(pool: pg.Pool, ref: string) {
  return recordEvents(pool, [
    {
      collectionId: null,
      merchantReference: ref,
      source: 'initiate',
      kind: 'initialize_unknown',
      status: 'UNKNOWN',
      receivedAt: Date.now(),
      signature: 'not_applicable',
      dedupeKey: `claims-test:${ref}:unknown`,
    },
  ]);
}

describe('team.claim_intent', () => {
  it('creating an intent is its creator’s claim; it ends when the outcome is recorded, or expires', async () => {
    const a = await operator('support');
    const admin = await operator('admin');
    const poolA = team.signIn(a);
    const poolAdmin = team.signIn(admin);
    const intent = newIntent();
    const ref = intent.merchantReference;
    await recordIntent(poolA, intent);
    // The creation holds it: even an admin waits for its outcome.
    const refused = await claimIntent(poolAdmin, ref).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClaimRefusedError);
    expect((refused as ClaimRefusedError).refusal).toMatchObject({ reason: 'held', heldBy: a, createdBy: a });
    // So does the creator itself (a second window, a second desk of the same login).
    await expect(claimIntent(poolA, ref)).rejects.toMatchObject({ refusal: { reason: 'held', heldBy: a } });

    // The outcome recorded by the holder ends it.
    await unknownOutcome(poolA, ref);
    // Two at once: exactly one is granted.
    const both = await Promise.allSettled([claimIntent(poolA, ref), claimIntent(poolAdmin, ref)]);
    expect(both.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    expect(both.filter((x) => x.status === 'rejected').map((x) => (x as PromiseRejectedResult).reason)).toEqual([
      expect.objectContaining({ refusal: expect.objectContaining({ reason: 'held' }) }),
    ]);
    const rows = await team.owner.query<{ claimed_by: string; open: boolean; by_db: boolean }>(
      `SELECT claimed_by, closed_at IS NULL AS open, expires_at - claimed_at = interval '5 minutes' AS by_db
       FROM team.claims WHERE merchant_reference = $1 ORDER BY id`,
      [ref],
    );
    expect(rows.rows.map((r) => [r.open, r.by_db])).toEqual([
      [false, true],
      [true, true],
    ]);
    // A claim that was never closed (its desk crashed) ends when it expires.
    await team.owner.query(
      "UPDATE team.claims SET claimed_at = claimed_at - interval '10 minutes', expires_at = expires_at - interval '10 minutes' WHERE merchant_reference = $1",
      [ref],
    );
    const later = await claimIntent(poolAdmin, ref);
    expect(later.claimedBy).toBe(admin);
  });

  it('another login holding a lock of its own cannot stall a payment’s claims (a finance login, an advisory lock)', async () => {
    const a = await operator('support');
    const finance = team.signIn(await operator('finance'));
    const poolA = team.signIn(a);
    const intent = newIntent();
    const ref = intent.merchantReference;
    await recordIntent(poolA, intent);
    await unknownOutcome(poolA, ref);
    // Migration 9 serialised a reference's claims with pg_advisory_xact_lock(19781, hashtext(reference)),
    // and any login may take any advisory lock: held at session level, the creator's "Charge again" waited
    // as long as that session lived.
    const holder = await finance.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(19781, hashtext($1))', [ref]);
      const claimed = await Promise.race([
        claimIntent(poolA, ref),
        new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 5000)),
      ]);
      expect(claimed).toMatchObject({ claimedBy: a });
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
      holder.release();
    }
  });

  it('a client may not write claims itself; an unknown reference is said so', async () => {
    const a = await operator('support');
    const poolA = team.signIn(a);
    const intent = newIntent();
    await recordIntent(poolA, intent);
    await expect(
      poolA.query(
        "INSERT INTO team.claims (merchant_reference, claimed_by, claimed_at, expires_at) VALUES ($1, 'x', now(), now() + interval '1 day')",
        [intent.merchantReference],
      ),
    ).rejects.toMatchObject({ code: '42501' });
    await expect(claimIntent(poolA, 'NO-SUCH-REF')).rejects.toMatchObject({ refusal: { reason: 'no_intent' } });
  });
});

describe("the team record's hash chain on a desk", () => {
  it('says "verified through seq N"; after the superuser rewrote a verified event, the next sign-in raises the alarm in the status', async () => {
    const a = await operator('support');
    const first = await desk(a);
    await unknownPaymentOn(first.core);
    const top = Number((await team.owner.query<{ m: string }>('SELECT max(seq) AS m FROM team.events')).rows[0]!.m);
    await until('the desk verified the record through its newest seq', () => {
      const c = first.core.appStatus().team?.chain;
      return c?.verifiedSeq === top && c.recheckedAt !== null;
    });
    expect(first.core.appStatus()).toMatchObject({ connection: 'online', team: { chain: { broken: null } } });
    cores.splice(cores.indexOf(first.core), 1);
    await first.core.close();

    const victim = Number(
      (await team.owner.query<{ m: string }>("SELECT min(seq) AS m FROM team.events WHERE source = 'intent'")).rows[0]!
        .m,
    );
    const c = await team.owner.connect();
    try {
      await c.query('BEGIN');
      await c.query('ALTER TABLE team.events DISABLE TRIGGER USER');
      await c.query('UPDATE team.events SET amount_minor = 1 WHERE seq = $1', [victim]);
      await c.query('ALTER TABLE team.events ENABLE TRIGGER USER');
      await c.query('COMMIT');
    } finally {
      c.release();
    }

    const again = await desk(a, first.dataDir);
    await until('the alarm is raised', () => again.core.appStatus().connection === 'error');
    expect(again.core.appStatus()).toMatchObject({
      connection: 'error',
      message: expect.stringMatching(new RegExp(`^Team record altered: seq ${victim} does not match its hash chain`)),
      team: { chain: { broken: { seq: victim } } },
    });
  });
});
