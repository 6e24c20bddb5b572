// The ledger stores an event, its projection, its reconciliation and (team profile) its outbox row in
// ONE SQLite transaction: a failure in any part leaves none of them. Real SQLite; the faults are real
// (a trigger that refuses the outbox row, a reconciliation hook that throws).
import { describe, expect, it } from 'vitest';
import { createLedger } from '../../main/collections/ledger.js';
import type { NewEvent } from '../../main/collections/event-rules.js';
import type { Db } from '../../main/store/sqlite/connection.js';
import { testLedger } from '../support/ledger.js';
import { freshDb, insertCollection } from './helpers.js';

// A ledger exists only made with the reconciliation it runs (createLedger): there is no ledger that
// stores events without reconciling them, so that case is the compiler's to refuse, not a test's.
const { ledger, reconciler } = testLedger();

const REF = 'MD-LEDGER-0001';
function answer(id: number): NewEvent {
  return {
    collectionId: id,
    merchantReference: REF,
    source: 'initiate',
    kind: 'initialize_accepted',
    status: 'PENDING',
    receivedAt: Date.UTC(2026, 10, 21, 10, 1, 0),
    signature: 'not_applicable',
    internalReference: 'INT-1',
    paymentUrl: 'https://pay.example.invalid/1',
  };
}

/** What the four parts hold for the collection. */
function state(db: Db, id: number) {
  return {
    events: db
      .prepare('SELECT kind, dedupe_key IS NOT NULL AS keyed FROM collection_events WHERE collection_id = ?')
      .all(id),
    projection: db.prepare('SELECT status, payment_url, last_event_id FROM collections WHERE id = ?').get(id),
    reconciliation:
      db.prepare('SELECT outcome, last_event_id FROM reconciliation WHERE collection_id = ?').get(id) ?? null,
    outbox: db
      .prepare(
        'SELECT o.event_key, o.kind, o.payment_url, o.state FROM team_outbox o JOIN collection_events e ON e.id = o.event_id WHERE e.collection_id = ?',
      )
      .all(id),
  };
}

describe('the ledger', () => {
  it('stores the event, moves the projection, reconciles and writes the outbox row together', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: REF, status: 'INTENT' });
    const r = ledger.append(db, answer(id), { outbox: true });
    expect(r.inserted).toBe(true);
    const s = state(db, id);
    expect(s.events).toEqual([{ kind: 'initialize_accepted', keyed: 1 }]);
    expect(s.projection).toEqual({
      status: 'PENDING',
      payment_url: 'https://pay.example.invalid/1',
      last_event_id: r.eventId,
    });
    expect(s.reconciliation).toMatchObject({ last_event_id: r.eventId });
    expect(s.outbox).toEqual([
      {
        event_key: expect.stringMatching(new RegExp(`^initiate:initialize_accepted:${REF}:`)),
        kind: 'initialize_accepted',
        payment_url: 'https://pay.example.invalid/1',
        state: 'pending',
      },
    ]);
    // The same answer again is the same event: nothing more, not in the outbox either.
    expect(ledger.append(db, answer(id), { outbox: true }).inserted).toBe(false);
    expect(state(db, id)).toEqual(s);
    // Without the outbox option (solo, or an event pulled from the team) there is no outbox row.
    const other = insertCollection(db, { reference: 'MD-LEDGER-0002', status: 'INTENT' });
    ledger.append(db, { ...answer(other), merchantReference: 'MD-LEDGER-0002' });
    expect(state(db, other).outbox).toEqual([]);
  });

  it('an outbox row that cannot be written leaves no event, no projection change and no reconciliation', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: REF, status: 'INTENT' });
    const before = state(db, id);
    db.exec(`CREATE TRIGGER refuse_outbox BEFORE INSERT ON team_outbox BEGIN SELECT RAISE(ABORT, 'outbox full'); END`);
    expect(() => ledger.append(db, answer(id), { outbox: true })).toThrow(/outbox full/);
    expect(state(db, id)).toEqual(before);
    db.exec('DROP TRIGGER refuse_outbox');
    ledger.append(db, answer(id), { outbox: true });
    expect(state(db, id).outbox).toHaveLength(1);
  });

  it('a reconciliation that fails leaves no event, no projection change and no outbox row', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: REF, status: 'INTENT' });
    const before = state(db, id);
    const failing = createLedger({
      afterAppend(d, collectionId) {
        reconciler.afterAppend(d, collectionId);
        throw new Error('reconciliation failed');
      },
      onceAfter: (_d, fn) => fn(),
      all: async () => undefined,
    });
    expect(() => failing.append(db, answer(id), { outbox: true })).toThrow(/reconciliation failed/);
    expect(state(db, id)).toEqual(before);
  });

  it('an event the projection cannot take (an unknown collection) leaves nothing either', () => {
    const { db } = freshDb();
    expect(() => ledger.append(db, answer(999), { outbox: true })).toThrow(/collection 999 does not exist/);
    expect(db.prepare('SELECT COUNT(*) FROM team_outbox').pluck().get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM collection_events').pluck().get()).toBe(0);
  });
});
