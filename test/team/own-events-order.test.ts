// A desk's own facts are provisional until the team record shows them (team/sync/refold.ts): the desk that
// charged stores the service's answers first and sends them through its outbox, so the record may place one
// after events this desk applied later, or refuse it. Against a real PostgreSQL, two desks: the one that
// charged must end showing what the other shows (and what a replay of the record makes), row for row.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/clock.js';
import { withTeamKey } from '../../main/collections/event-key.js';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { appendJudgedEvents } from '../../main/team/events.js';
import { recordEvents } from '../../main/team/record.js';
import { pendingOutbox } from '../../main/collections/outbox.js';
import { startOutboxPush } from '../../main/team/sync/push.js';
import { setOperatorRole } from '../../main/operations/operators.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import {
  callbackEvent,
  chargeOn,
  collectionView,
  eventsView,
  openDesk,
  quietLogger,
  reconciliationView,
  type Desk,
} from './sync-desk.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

let team: TeamFixture;
let sam: string;
let samPool: pg.Pool;
let serve: pg.Pool;
const desks: Desk[] = [];

beforeAll(async () => {
  team = await teamFixture();
  sam = await team.addOperator('support', 'sam');
  samPool = team.signIn(sam);
  serve = team.signIn(await team.addOperator('receiver', 'serve'));
});
afterAll(async () => {
  for (const d of desks) await d.close().catch(() => undefined);
  await team?.close();
});

function desk(pool: pg.Pool): Desk {
  const d = openDesk(pool);
  desks.push(d);
  return d;
}

/** The desk that charged stores a redirect the way a charge does: first here, with an outbox row. */
function captureRedirect(d: Desk, id: number, reference: string, status: string): void {
  ledger.append(
    d.db,
    withTeamKey({
      collectionId: id,
      merchantReference: reference,
      internalReference: `INT-${reference}`,
      source: 'redirect',
      kind: 'outcome',
      status,
      receivedAt: Date.now(),
      signature: 'verified',
      actor: sam,
    }),
    { outbox: true },
  );
}

function shown(d: Desk, reference: string) {
  return {
    collection: collectionView(d.db, reference),
    // Ids are each desk's own; the order is what the events say to every reader of the history.
    events: eventsView(d.db, reference),
    reconciliation: reconciliationView(d.db).filter((r) => r.merchant_reference === reference),
  };
}

/** As the superuser, triggers off: sets the intent's note of `reference` in the record; returns the old one. */
async function rewriteIntentNote(reference: string, note: string | null): Promise<string | null> {
  const c = await team.owner.connect();
  try {
    await c.query('BEGIN');
    await c.query('ALTER TABLE team.events DISABLE TRIGGER USER');
    const r = await c.query<{ note: string | null }>(
      "SELECT note FROM team.events WHERE merchant_reference = $1 AND source = 'intent'",
      [reference],
    );
    await c.query("UPDATE team.events SET note = $2 WHERE merchant_reference = $1 AND source = 'intent'", [
      reference,
      note,
    ]);
    await c.query('ALTER TABLE team.events ENABLE TRIGGER USER');
    await c.query('COMMIT');
    return r.rows[0]!.note;
  } finally {
    c.release();
  }
}

describe("a desk's own events, once the team record has them", () => {
  it("are folded in the record's order: serve's callback committed while the redirect waited in the outbox", async () => {
    const own = desk(samPool);
    const other = desk(team.owner);
    const { id, intent } = await chargeOn(own);
    const reference = intent.merchantReference;
    await own.sync.pullNow();
    // The customer cancelled on the page: the redirect is stored here first...
    captureRedirect(own, id, reference, 'CANCELLED');
    // ...while serve's callback (the service's own later word: FAILED) reaches the record first, and this
    // desk applies it.
    await appendJudgedEvents(serve, [callbackEvent(intent, 'FAILED')]);
    await own.sync.pullNow();
    // Only then does the outbox send the redirect: the record has it after the callback.
    const push = startOutboxPush({ pool: samPool, db: own.db, clock: systemClock, logger: quietLogger });
    await push.drain();
    await push.close();
    await own.sync.pullNow();
    await other.sync.pullNow();

    const theirs = shown(other, reference);
    expect(theirs.collection).toMatchObject({
      status: 'CANCELLED',
      callback_status: 'FAILED',
      redirect_status: 'CANCELLED',
    });
    // Before the refold the desk that charged showed FAILED (its own order: redirect, then callback).
    expect(shown(own, reference)).toEqual(theirs);
  });

  it('leave out one the team database refused: the desk shows no fact the others do not have', async () => {
    const operator = await team.addOperator('support', 'ann');
    const annPool = team.signIn(operator);
    const own = desk(annPool);
    const other = desk(team.owner);
    const { id, intent } = await chargeOn(own);
    const reference = intent.merchantReference;
    await own.sync.pullNow();
    ledger.append(
      own.db,
      withTeamKey({
        collectionId: id,
        merchantReference: reference,
        internalReference: `INT-${reference}`,
        source: 'redirect',
        kind: 'outcome',
        status: 'COMPLETED',
        receivedAt: Date.now(),
        signature: 'verified',
        actor: operator,
      }),
      { outbox: true },
    );
    expect(collectionView(own.db, reference)).toMatchObject({ status: 'COMPLETED' });
    // An admin made the operator finance meanwhile: finance may not write charge events.
    await setOperatorRole({ pool: team.owner }, operator, 'finance');
    const push = startOutboxPush({ pool: annPool, db: own.db, clock: systemClock, logger: quietLogger });
    await push.drain();
    await push.close();
    await own.sync.pullNow();
    await other.sync.pullNow();

    // The refused redirect stays in this desk's timeline, but settles nothing here either.
    expect(
      own.db
        .prepare(
          "SELECT state FROM team_outbox WHERE event_id IN (SELECT id FROM collection_events WHERE merchant_reference = ? AND source = 'redirect')",
        )
        .pluck()
        .get(reference),
    ).toBe('refused');
    expect(collectionView(own.db, reference)).toEqual(collectionView(other.db, reference));
    expect(collectionView(own.db, reference)).toMatchObject({ status: 'PENDING' });
    expect(reconciliationView(own.db).filter((r) => r.merchant_reference === reference)).toEqual(
      reconciliationView(other.db).filter((r) => r.merchant_reference === reference),
    );
  });

  it('leave out two the team database refused after it placed a callback between them and the intent', async () => {
    // The charge's answers (initialize, redirect) wait in the outbox while serve's callback is applied: the
    // reference's events are this desk's newest, so its refold stores them anew on the ids it just freed,
    // in another order (intent, callback, then the two refused ones), and each outbox row must follow its
    // own event there.
    const operator = await team.addOperator('support', 'ivy');
    const ivyPool = team.signIn(operator);
    const own = desk(ivyPool);
    const other = desk(team.owner);
    const { id, intent } = await chargeOn(own);
    const reference = intent.merchantReference;
    await own.sync.pullNow();
    const answer = (over: Partial<NewEvent>) =>
      ledger.append(
        own.db,
        withTeamKey({
          collectionId: id,
          merchantReference: reference,
          internalReference: `INT-${reference}`,
          source: 'initiate',
          kind: 'initialize_accepted',
          status: 'PENDING',
          receivedAt: Date.now(),
          signature: 'not_applicable',
          actor: operator,
          paymentUrl: `https://pay.invalid/${reference}`,
          ...over,
        }),
        { outbox: true },
      );
    answer({});
    answer({ source: 'redirect', kind: 'outcome', status: 'COMPLETED', signature: 'verified', paymentUrl: null });
    await appendJudgedEvents(serve, [callbackEvent(intent, 'COMPLETED')]);
    await own.sync.pullNow();
    // An admin made the operator back office before the outbox sent them: both are refused.
    await setOperatorRole({ pool: team.owner }, operator, 'back_office');
    const push = startOutboxPush({ pool: ivyPool, db: own.db, clock: systemClock, logger: quietLogger });
    await push.drain();
    await push.close();
    await own.sync.pullNow();
    await other.sync.pullNow();

    expect(
      own.db
        .prepare(
          'SELECT o.state FROM team_outbox o JOIN collection_events e ON e.id = o.event_id WHERE e.merchant_reference = ? ORDER BY e.id',
        )
        .pluck()
        .all(reference),
    ).toEqual(['refused', 'refused']);
    // Not the redirect's answer, nor the page this desk was given: what every other desk shows.
    expect(collectionView(own.db, reference)).toEqual(collectionView(other.db, reference));
    expect(collectionView(own.db, reference)).toMatchObject({ status: 'COMPLETED', redirect_status: null });
    expect(collectionView(own.db, reference)?.payment_url).not.toBe(`https://pay.invalid/${reference}`);
    expect(reconciliationView(own.db).filter((r) => r.merchant_reference === reference)).toEqual(
      reconciliationView(other.db).filter((r) => r.merchant_reference === reference),
    );
  });

  it('count as taken when the record holds them already: the push committed, its answer was lost, the role changed', async () => {
    const operator = await team.addOperator('support', 'joe');
    const joePool = team.signIn(operator);
    const own = desk(joePool);
    const other = desk(team.owner);
    const { id, intent } = await chargeOn(own);
    const reference = intent.merchantReference;
    await own.sync.pullNow();
    ledger.append(
      own.db,
      withTeamKey({
        collectionId: id,
        merchantReference: reference,
        internalReference: `INT-${reference}`,
        source: 'redirect',
        kind: 'outcome',
        status: 'COMPLETED',
        receivedAt: Date.now(),
        signature: 'verified',
        actor: operator,
      }),
      { outbox: true },
    );
    // The push's statement commits, but the line drops before its answer: the row stays pending here.
    await recordEvents(
      joePool,
      pendingOutbox(own.db, 10).map((x) => x.event),
    );
    await own.sync.pullNow();
    // An admin made the operator back office before the push sent it again: the database refuses any row
    // back office writes, one it already holds included.
    await setOperatorRole({ pool: team.owner }, operator, 'back_office');
    const push = startOutboxPush({ pool: joePool, db: own.db, clock: systemClock, logger: quietLogger });
    await push.drain();
    await push.close();
    await own.sync.pullNow();
    await other.sync.pullNow();

    // The team has it, so this desk does not call it "not accepted" nor leave it out of its reconciliation.
    expect(
      own.db
        .prepare(
          "SELECT state FROM team_outbox WHERE event_id IN (SELECT id FROM collection_events WHERE merchant_reference = ? AND source = 'redirect')",
        )
        .pluck()
        .get(reference),
    ).toBe('sent');
    expect(collectionView(own.db, reference)).toEqual(collectionView(other.db, reference));
    expect(collectionView(own.db, reference)).toMatchObject({ status: 'COMPLETED', redirect_status: 'COMPLETED' });
    expect(reconciliationView(own.db).filter((r) => r.merchant_reference === reference)).toEqual(
      reconciliationView(other.db).filter((r) => r.merchant_reference === reference),
    );
  });
  it('are folded for every other reference when one cannot be: its record row was altered', async () => {
    const operator = await team.addOperator('support', 'kim');
    const kimPool = team.signIn(operator);
    const own = desk(kimPool);
    const other = desk(team.owner);
    const charges = [await chargeOn(own), await chargeOn(own)];
    // The queue folds references in mark order, then by name: the altered one is first of the two.
    charges.sort((a, b) => a.intent.merchantReference.localeCompare(b.intent.merchantReference));
    const [altered, intact] = charges.map((c) => c.intent.merchantReference) as [string, string];
    await own.sync.pullNow();
    for (const { id, intent } of charges) captureRedirect(own, id, intent.merchantReference, 'CANCELLED');
    await appendJudgedEvents(
      serve,
      charges.map(({ intent }) => callbackEvent(intent, 'FAILED')),
    );
    await own.sync.pullNow();
    // A superuser rewrites the first reference's intent in the record (its hash no longer matches it).
    const note = await rewriteIntentNote(altered, 'rewritten');
    try {
      const push = startOutboxPush({ pool: kimPool, db: own.db, clock: systemClock, logger: quietLogger });
      await push.drain();
      await push.close();
      // The pull says why it failed, and the altered reference waits for the next one.
      await expect(own.sync.pullNow()).rejects.toThrow(new RegExp(`${altered} does not match its hash`));
      expect(own.db.prepare('SELECT merchant_reference FROM team_refold ORDER BY 1').pluck().all()).toEqual([altered]);
    } finally {
      // Put back: the record's chain is shared by every test of this file.
      await rewriteIntentNote(altered, note);
    }
    await other.sync.pullNow();
    // The other reference was folded all the same: this desk shows what the others show.
    expect(shown(own, intact)).toEqual(shown(other, intact));
    expect(collectionView(own.db, intact)).toMatchObject({ status: 'CANCELLED', callback_status: 'FAILED' });
    // With the record right again, the next pull folds the one left.
    await own.sync.pullNow();
    expect(shown(own, altered)).toEqual(shown(other, altered));
  });
});
