// What the incremental reconciliation keeps per connection (its clock, a group's touched collections) is
// the Reconciler's own, the object a composition root builds, never the module's: two compositions on one
// connection do not see each other's settings, and a group scope on one does not swallow the other's
// appends.
import { describe, expect, it } from 'vitest';
import type { Db } from '../../main/store/sqlite/connection.js';
import { testLedger } from '../support/ledger.js';
import { History, testDb } from './fixtures.js';

const computedAt = (db: Db, id: number) =>
  db.prepare('SELECT computed_at FROM reconciliation WHERE collection_id = ?').pluck().get(id) as number;
const callbacks = (db: Db, id: number) =>
  db.prepare('SELECT callback_status FROM reconciliation WHERE collection_id = ?').pluck().get(id) as string | null;

describe('a Reconciler', () => {
  it('keeps the clock set on a connection to itself: a ledger composed apart reconciles on its own clock', () => {
    const { db } = testDb();
    const h = new History(db); // the fixtures' reconciler: this history's clock on this connection
    const id = h.collection();
    const other = testLedger();
    other.reconciler.setOptions(db, () => ({ now: Date.UTC(2030, 0, 1) }));
    h.accepted(id);
    expect(computedAt(db, id)).toBe(h.t + 1000);
    other.ledger.append(db, {
      collectionId: id,
      merchantReference: db
        .prepare('SELECT merchant_reference FROM collections WHERE id = ?')
        .pluck()
        .get(id) as string,
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: h.tick(),
      signature: 'verified',
      amountMinor: 150_000,
      currency: 'UGX',
    });
    expect(computedAt(db, id)).toBe(Date.UTC(2030, 0, 1));
  });

  it("notes a group's appends in its own scope only: a ledger composed apart reconciles at once inside it", () => {
    const { db } = testDb();
    const h = new History(db);
    const a = h.collection();
    const b = h.collection();
    const other = testLedger();
    other.ledger.batch(db, () => {
      h.callback(a, 'COMPLETED'); // the fixtures' ledger: not in the other's scope, reconciled at once
      expect(callbacks(db, a)).toBe('COMPLETED');
      h.callback(b, 'COMPLETED');
    });
    expect(callbacks(db, b)).toBe('COMPLETED');
  });
});
