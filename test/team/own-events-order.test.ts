// A desk's own facts are provisional until the team record shows them (team/sync/refold.ts): the desk that
// charged stores the service's answers first and sends them through its outbox, so the record may place one
// after events this desk applied later, or refuse it. Against a real PostgreSQL, two desks: the one that
// charged must end showing what the other shows (and what a replay of the record makes), row for row.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../main/clock.js';
import { withTeamKey } from '../../main/collections/event-key.js';
import { appendUnstoredEvents } from '../../main/team/events.js';
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
    await appendUnstoredEvents(serve, [callbackEvent(intent, 'FAILED')]);
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
});
