// Two desktops' SQLite files on one team database: what one writes, the other shows the same way,
// nothing is stored twice, and a notification wakes a desktop at once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { latestBalances } from '../../main/store/sqlite/balances.js';
import { listPaymentOptions } from '../../main/store/sqlite/payment-options.js';
import { ReferenceTakenError } from '../../main/team/errors.js';
import { appendEvents, pullSince } from '../../main/team/events.js';
import {
  fromTeamEvent,
  recordEvents,
  recordIntent,
  teamEventKey,
  toTeamEvent,
  withTeamKey,
} from '../../main/team/record.js';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { systemClock } from '../../main/clock.js';
import { startTeamSync } from '../../main/team/sync/pull.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import {
  callbackEvent,
  chargeOn,
  collectionView,
  eventsView,
  newIntent,
  openDesk,
  reconciliationView,
  writeLocal,
  type Desk,
} from './sync-desk.js';
import { testLedger } from '../support/ledger.js';
import { until } from '../support/wait.js';

const { ledger } = testLedger();

let team: TeamFixture;
let support: string;
let support2: string;
let backOffice: string;
let finance: string;
const desks: Desk[] = [];

beforeAll(async () => {
  team = await teamFixture();
  support = await team.addOperator('support');
  support2 = await team.addOperator('support');
  backOffice = await team.addOperator('back_office');
  finance = await team.addOperator('finance');
});
afterEach(async () => {
  await Promise.all(desks.splice(0).map((d) => d.close()));
});
afterAll(async () => {
  await team?.close();
});

function desk(login: string, over: Parameters<typeof openDesk>[1] = {}): Desk {
  const d = openDesk(team.signIn(login), over);
  desks.push(d);
  return d;
}

const eventCount = (d: Desk) => d.db.prepare('SELECT count(*) FROM collection_events').pluck().get() as number;

describe('team sync between two desktops', () => {
  it("shows A's charge on B with the same row, history and reconciliation; nothing of A's own is stored twice", async () => {
    const a = desk(support);
    const b = desk(support2);
    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);
    const { id, intent } = await chargeOn(a);
    const ref = intent.merchantReference;
    await writeLocal(a, {
      collectionId: id,
      merchantReference: ref,
      source: 'redirect',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: Date.now(),
      signature: 'verified',
      internalReference: `INT-${ref}`,
      payload: JSON.stringify({ status: 'COMPLETED', merchant_reference: ref }),
      statusMessage: 'redirect: COMPLETED',
    });
    // Counted before the callback: a notification may wake A's pull before the explicit one below, so
    // counting after it was written could already include it.
    const beforeA = eventCount(a);
    // The service's callback, received by `serve` under another login.
    await appendEvents(team.signIn(backOffice), [callbackEvent(intent, 'COMPLETED')]);

    // Either pull may have been woken already by the notification; what counts is what is stored.
    await Promise.all([a.sync.pullNow(), b.sync.pullNow()]);
    expect(eventCount(a)).toBe(beforeA + 1); // only the callback was new to A
    expect(eventsView(a.db, ref).map((e) => e.source)).toEqual(['intent', 'initiate', 'redirect', 'callback']);

    expect(collectionView(b.db, ref)).toEqual(collectionView(a.db, ref));
    expect(collectionView(b.db, ref)).toMatchObject({
      status: 'COMPLETED',
      payment_url: `https://pay.example.invalid/pay/${ref}`,
      status_message: 'Approved',
      customer_name: intent.customerName,
      card_last4: '4242',
    });
    expect(eventsView(b.db, ref)).toEqual(eventsView(a.db, ref));
    expect(reconciliationView(b.db)).toEqual(reconciliationView(a.db));
    expect(reconciliationView(b.db)[0]).toMatchObject({ merchant_reference: ref, outcome: 'matched' });

    // Pulling again changes nothing on either.
    expect(await a.sync.pullNow()).toBe(0);
    expect(await b.sync.pullNow()).toBe(0);
    expect(a.sync.status()).toMatchObject({ online: true, error: null });
    expect(b.sync.status().lastSeq).toBe(a.sync.status().lastSeq);
  });

  it("shows B's resolution on A, and a callback reaches both", async () => {
    const a = desk(support);
    const b = desk(backOffice);
    const { intent } = await chargeOn(a);
    const ref = intent.merchantReference;
    await appendEvents(team.signIn(backOffice), [
      callbackEvent(intent, 'FAILED', { amountMinor: intent.amountMinor - 1 }),
    ]);
    await b.sync.pullNow();
    const bId = b.db.prepare('SELECT id FROM collections WHERE merchant_reference = ?').pluck().get(ref) as number;
    expect(reconciliationView(b.db).find((r) => r.merchant_reference === ref)).toMatchObject({ is_exception: 1 });
    await writeLocal(b, {
      collectionId: bId,
      merchantReference: ref,
      source: 'manual',
      kind: 'resolution',
      receivedAt: Date.now(),
      signature: 'not_applicable',
      note: 'the customer paid the difference in cash',
      actor: backOffice,
    });
    await a.sync.pullNow();
    expect(eventsView(a.db, ref)).toEqual(eventsView(b.db, ref));
    expect(collectionView(a.db, ref)).toEqual(collectionView(b.db, ref));
    const recA = reconciliationView(a.db).find((r) => r.merchant_reference === ref);
    expect(recA).toEqual(reconciliationView(b.db).find((r) => r.merchant_reference === ref));
    expect(recA).toMatchObject({ is_exception: 0, resolution_note: 'the customer paid the difference in cash' });
  });

  it('stores an event written twice once, on the team and on every desktop', async () => {
    const a = desk(support);
    const b = desk(support2);
    const { intent } = await chargeOn(a);
    const cb = callbackEvent(intent);
    const writer = team.signIn(backOffice);
    await appendEvents(writer, [cb]);
    expect(await appendEvents(writer, [cb])).toEqual({ stored: [], duplicates: [cb.eventKey] });
    const ev: NewEvent = {
      collectionId: null,
      merchantReference: intent.merchantReference,
      source: 'initiate',
      kind: 'initialize_unknown',
      status: 'UNKNOWN',
      receivedAt: 1_700_000_000_000,
      signature: 'not_applicable',
      statusMessage: 'timed out',
    };
    const first = await recordEvents(a.pool, [ev, ev]);
    expect(first.stored).toHaveLength(1);
    expect((await recordEvents(a.pool, [ev])).stored).toHaveLength(0);
    await b.sync.pullNow();
    const keys = b.db
      .prepare('SELECT dedupe_key FROM collection_events WHERE merchant_reference = ?')
      .pluck()
      .all(intent.merchantReference);
    expect(keys).toEqual([`intent:${intent.merchantReference}`, expect.any(String), cb.eventKey, teamEventKey(ev)]);
  });

  it('wakes B within a second of A recording an intent (no periodic pull needed)', async () => {
    const a = desk(support);
    const b = desk(support2, { pollEveryMs: 600_000 });
    await until('B online', () => b.sync.status().online, 5000, 10);
    await new Promise((r) => setTimeout(r, 300)); // its LISTEN connection is up
    const intent = newIntent();
    const t0 = Date.now();
    await recordIntent(a.pool, intent);
    const has = b.db.prepare('SELECT 1 FROM collections WHERE merchant_reference = ?').pluck();
    const ms = await until('the row on B', () => has.get(intent.merchantReference) !== undefined, 1000, 10);
    expect(ms + (Date.now() - t0 - ms)).toBeLessThan(1000);
  });

  it('refuses a second intent for a reference, naming who holds it', async () => {
    const intent = newIntent();
    await recordIntent(team.signIn(support), intent);
    const err = await recordIntent(team.signIn(support2), intent).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReferenceTakenError);
    expect((err as Error).message).toContain(`created by ${support}`);
  });

  it('pulls balance snapshots and the newest payment option list into the local stores', async () => {
    const f = team.signIn(finance);
    const at = new Date('2026-11-20T10:00:00Z');
    await f.query(
      `INSERT INTO team.balance_snapshots (observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
       VALUES ($1, 'UGX', 'MERCHANT_COLLECTION', 1000, 1600, 500, 100), ($1, 'KES', 'MERCHANT_COLLECTION', 70, 70, 0, 0)`,
      [at],
    );
    const option = (code: string) => ({
      providerName: `Card ${code}`,
      providerCode: code,
      transactionMethod: 'CARD',
      transactionMethodName: 'Card',
      transactionType: 'Collection',
      currency: 'UGX',
      minMinor: 500,
      maxMinor: 5_000_000,
      maxDailyMinor: 50_000_000,
      isActive: true,
      optionPrefixes: [],
    });
    await f.query(`INSERT INTO team.payment_option_lists (fetched_at, options) VALUES ($1, $2)`, [
      at,
      JSON.stringify([option('OLD')]),
    ]);
    await f.query(`INSERT INTO team.payment_option_lists (fetched_at, options) VALUES ($1, $2)`, [
      at,
      JSON.stringify([option('CARD_UGX')]),
    ]);
    // Told as the local poller tells it, so the Balances and Payment options screens read again.
    const polled: [string, number][] = [];
    const b = desk(support, { onPolled: (what, changed) => polled.push([what, changed]) });
    await b.sync.pullNow();
    expect(polled).toEqual([
      ['balances', 2],
      ['options', 1],
    ]);
    const balances = latestBalances(b.db, { now: at.getTime(), staleAfterMs: 60_000 });
    expect(balances.rows.map((r) => [r.currency, r.availableMinor, r.observedAt])).toEqual([
      ['KES', 70, at.getTime()],
      ['UGX', 1000, at.getTime()],
    ]);
    expect(listPaymentOptions(b.db).map((o) => o.providerCode)).toEqual(['CARD_UGX']);
    // Nothing again on the next pull.
    await b.sync.pullNow();
    expect(b.db.prepare('SELECT count(*) FROM balance_snapshots').pluck().get()).toBe(2);
    expect(polled).toHaveLength(2);
  });
});

describe('a desk pointed at another team database', () => {
  it('applies nothing from it, says why, refuses to write to it, and syncs again from its own', async () => {
    const a = desk(support);
    await chargeOn(a);
    await a.sync.pullNow();
    const before = eventCount(a);
    const other = await teamFixture();
    try {
      const stranger = await other.addOperator('support');
      await recordIntent(other.signIn(stranger), newIntent());
      const wrong = startTeamSync({
        pool: other.signIn(stranger),
        db: a.db,
        ledger,
        clock: systemClock,
        logger: { info() {}, warn() {} },
        pollEveryMs: 60_000,
      });
      try {
        await expect(wrong.pullNow()).rejects.toThrow(/this desk's local copy was synced from another team database/);
        expect(wrong.status()).toMatchObject({ wrongDatabase: true, online: false });
        expect(eventCount(a)).toBe(before);
      } finally {
        await wrong.close();
      }
    } finally {
      await other.close();
    }
    await chargeOn(desk(support2));
    await a.sync.pullNow();
    expect(a.sync.status()).toMatchObject({ error: null });
    expect(eventCount(a)).toBeGreaterThan(before);
  });
});

describe('the team copy of an event', () => {
  it('keeps every field Ledger.append needs, local -> team -> local', async () => {
    const ev: NewEvent = {
      collectionId: 7,
      merchantReference: 'MD-ROUND-TRIP-1',
      internalReference: 'INT-1',
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: 1_763_000_000_123,
      signature: 'verified',
      amountMinor: 123_456,
      currency: 'KES',
      dedupeKey: 'callback:MD-ROUND-TRIP-1:abc',
      payload: '{"event":"transaction.completed",  "payload":{"x":1}}',
      note: 'unreadable field: customer_name',
      actor: backOffice,
      paymentUrl: 'https://pay.example.invalid/pay/1',
      statusMessage: 'Approved',
    };
    const pool = team.signIn(backOffice);
    const stored = await appendEvents(pool, [toTeamEvent(ev)]);
    const pulled = (await pullSince(pool, stored.stored[0]!.seq - 1, 1)).events[0]!;
    const { collectionId: _c, ...rest } = ev;
    expect(fromTeamEvent(pulled)).toEqual(rest);
  });

  it('gives an event without a key the same key every time, and the local copy uses it', () => {
    const ev: NewEvent = {
      collectionId: 1,
      merchantReference: 'MD-KEY-1',
      source: 'initiate',
      kind: 'initialize_rejected',
      status: 'REJECTED',
      receivedAt: 1,
      signature: 'not_applicable',
    };
    expect(teamEventKey(ev)).toBe(teamEventKey({ ...ev }));
    expect(teamEventKey(ev)).not.toBe(teamEventKey({ ...ev, receivedAt: 2 }));
    expect(withTeamKey(ev).dedupeKey).toBe(toTeamEvent(ev).eventKey);
    expect(toTeamEvent(withTeamKey(ev)).eventKey).toBe(toTeamEvent(ev).eventKey);
  });
});
