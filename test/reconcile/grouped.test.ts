// Reconciler.onceAfter: the receiver's group commit appends many events and reconciles each collection
// it touched once, at the end, in the same transaction. The rows must be the ones reconciling after
// every event gives, and a failure anywhere must commit nothing of the group.
import { describe, expect, it } from 'vitest';
import type { Db } from '../../main/store/sqlite/connection.js';
import { History, testDb, reconciler } from './fixtures.js';

// Everything but computed_at: that is when the row was classified, which in a group is its end.
const SNAPSHOT =
  'SELECT collection_id, outcome, kinds, open_kinds, is_exception, last_event_id, stale_at, resolved_by_event_id, resolution_note, initiate_status, redirect_status, callback_status, import_status, manual_status, completed_at FROM reconciliation ORDER BY collection_id';
const count = (db: Db, sql: string) => db.prepare(sql).pluck().get() as number;

/** The same varied history, each step's events for all collections appended through `step`. */
function build(step: (db: Db, fn: () => void) => void): Db {
  const { db } = testDb();
  const h = new History(db);
  const ids: number[] = [];
  step(db, () => {
    for (let i = 0; i < 30; i++) ids.push(h.collection({ amountMinor: 5000 + i, currency: i % 3 ? 'UGX' : 'KES' }));
  });
  h.tick(1000);
  step(db, () => ids.forEach((id, i) => (i % 10 === 9 ? h.unknown(id) : h.accepted(id))));
  h.tick(60_000);
  step(db, () =>
    ids.forEach((id, i) => {
      const v = i % 10;
      if (v === 0) h.callback(id, 'COMPLETED');
      if (v === 1) {
        // Two events of one collection in one group: classified once, from both.
        h.redirect(id, 'COMPLETED');
        h.callback(id, 'FAILED');
      }
      if (v === 2) {
        h.callback(id, 'COMPLETED');
        h.callback(id, 'FAILED');
      }
      if (v === 3) h.callback(id, 'COMPLETED', { amountMinor: 1 });
      if (v === 4) h.callback(id, 'COMPLETED', { currency: 'USD' });
      if (v === 5) h.badSignature(id);
      if (v === 6) h.callback(id, 'CANCELLED', { payloadOnly: true });
    }),
  );
  h.tick(60_000);
  step(db, () => ids.forEach((id, i) => i % 10 === 0 && h.callback(id, 'COMPLETED', { source: 'import' })));
  return db;
}

describe('Reconciler.onceAfter', () => {
  it('gives the same reconciliation rows as reconciling after every event', () => {
    const eachEvent = build((_db, fn) => fn());
    const grouped = build((db, fn) => reconciler.onceAfter(db, fn));
    const rows = grouped.prepare(SNAPSHOT).all();
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => (r as { outcome: string }).outcome)).size).toBeGreaterThan(4);
    expect(rows).toEqual(eachEvent.prepare(SNAPSHOT).all());
  });

  it('a throw inside the scope commits none of its events; outside a scope appends reconcile at once again', () => {
    const { db } = testDb();
    const h = new History(db);
    const a = h.collection();
    const b = h.collection();
    h.accepted(a);
    h.accepted(b);
    const events = count(db, 'SELECT count(*) FROM collection_events');
    const before = db.prepare(SNAPSHOT).all();
    expect(() =>
      reconciler.onceAfter(db, () => {
        h.callback(a, 'COMPLETED');
        h.callback(b, 'COMPLETED');
        throw new Error('the group failed');
      }),
    ).toThrow('the group failed');
    expect(count(db, 'SELECT count(*) FROM collection_events')).toBe(events);
    expect(db.prepare(SNAPSHOT).all()).toEqual(before);
    h.callback(a, 'COMPLETED');
    expect(db.prepare('SELECT callback_status FROM reconciliation WHERE collection_id = ?').pluck().get(a)).toBe(
      'COMPLETED',
    );
  });

  it('a reconciliation that fails at the end of the group rolls back every event of the group', () => {
    const { db } = testDb();
    const h = new History(db);
    const a = h.collection();
    const b = h.collection();
    h.accepted(a);
    h.accepted(b);
    const events = count(db, 'SELECT count(*) FROM collection_events');
    const before = db.prepare(SNAPSHOT).all();
    db.exec(`CREATE TRIGGER fail_recon BEFORE UPDATE ON reconciliation WHEN NEW.collection_id = ${b}
             BEGIN SELECT RAISE(ABORT, 'injected reconciliation failure'); END`);
    expect(() =>
      reconciler.onceAfter(db, () => {
        h.callback(a, 'COMPLETED');
        h.callback(b, 'COMPLETED');
      }),
    ).toThrow('injected reconciliation failure');
    expect(count(db, 'SELECT count(*) FROM collection_events')).toBe(events);
    expect(db.prepare(SNAPSHOT).all()).toEqual(before);
  });

  it('a scope inside another leaves the reconciliation to the outer one', () => {
    const { db } = testDb();
    const h = new History(db);
    const a = h.collection();
    h.accepted(a);
    const status = () =>
      db.prepare('SELECT callback_status FROM reconciliation WHERE collection_id = ?').pluck().get(a);
    reconciler.onceAfter(db, () => {
      reconciler.onceAfter(db, () => h.callback(a, 'COMPLETED'));
      expect(status()).toBeNull();
    });
    expect(status()).toBe('COMPLETED');
  });
});
