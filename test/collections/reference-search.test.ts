import { describe, expect, it } from 'vitest';
import { listCollections } from '../../main/collections/query.js';
import { listExceptions } from '../../main/reconcile/index.js';
import { History, testDb } from '../reconcile/fixtures.js';

// One reference search for the payments list and the exceptions queue (main/store/sqlite/read/filters.ts):
// a prefix of the reference (the payments list also of the customer name); A-Z match a-z, every other
// character matches only as typed (SQLite's lower() folds ASCII only); % and _ are plain characters.
// The queue's LIKE answered this way before (but for blanks around the text, which the IPC contract
// trims for both screens anyway); the list did not for a prefix typed with an accented capital (it
// folded "Émile" to "émile", which lower() never gives) or followed by an emoji.
describe('the reference search', () => {
  it('finds the same references on the payments list and the exceptions queue', () => {
    const { db } = testDb();
    const h = new History(db);
    const refs = ['MD-ABC-001', 'md-abd-002', 'ÉTÉ-2026-01', 'été-2026-02', '100%_OFF-1', '100X-OFF-2', 'X1😀-9'];
    for (const ref of refs) {
      const id = h.collection({ ref, customerName: null });
      h.accepted(id);
      h.callback(id, 'COMPLETED', { amountMinor: 1 }); // an amount mismatch: each one is in the queue
    }
    const page = (text: string) =>
      listCollections(db, { text })
        .rows.map((r) => r.merchantReference)
        .sort();
    const queue = (text: string) =>
      listExceptions(db, { text })
        .rows.map((r) => r.merchantReference)
        .sort();
    const cases: [string, string[]][] = [
      ['md-ab', ['MD-ABC-001', 'md-abd-002']],
      ['MD-ABC', ['MD-ABC-001']],
      ['ÉTÉ', ['ÉTÉ-2026-01']],
      ['été', ['été-2026-02']],
      ['Été', []],
      ['100%', ['100%_OFF-1']],
      ['100_', []],
      ['x1', ['X1😀-9']],
      ['  md-abd ', ['md-abd-002']],
    ];
    for (const [text, want] of cases) {
      expect({ text, page: page(text) }).toEqual({ text, page: want });
      expect({ text, queue: queue(text) }).toEqual({ text, queue: want });
    }
  });

  it('finds a customer typed as written on the payments list', () => {
    const { db } = testDb();
    const h = new History(db);
    h.collection({ ref: 'MD-CUST-1', customerName: 'Émile Zola' });
    h.collection({ ref: 'MD-CUST-2', customerName: 'Amina Nakato' });
    const found = (text: string) => listCollections(db, { text }).rows.map((r) => r.merchantReference);
    expect(found('Émile')).toEqual(['MD-CUST-1']);
    expect(found('AMINA')).toEqual(['MD-CUST-2']);
  });
});
