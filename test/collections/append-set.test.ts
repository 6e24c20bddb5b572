// A set of events appended at once (Ledger.appendSet: a team desk's pulled batch) stores exactly what appending
// each in turn stores (Ledger.append): the same event rows, ids and kinds, the same projections, the same
// reconciliation rows, duplicates skipped and orphans kept orphans. Random histories (fast-check) of
// intents' events, redirects, callbacks (flips, disagreements, short amounts, other currencies, unsigned
// and forged), resolutions, orphans and repeats, cut into batches anywhere.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { insertIntentCollection } from '../../main/collections/intent-row.js';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { writeTransaction } from '../../main/store/sqlite/transaction.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

const REFS = ['MD-SET-1', 'MD-SET-2', 'MD-SET-3'];
const ORPHAN = 'MD-SET-NOBODY';

const event = fc.record({
  ref: fc.constantFrom(...REFS, ORPHAN),
  source: fc.constantFrom('callback', 'redirect', 'import', 'manual', 'initiate'),
  status: fc.constantFrom('COMPLETED', 'FAILED', 'PENDING', 'CANCELLED', null),
  signature: fc.constantFrom('verified', 'verified', 'invalid', 'missing', 'not_applicable'),
  amount: fc.constantFrom(10_000, 9_999, null),
  currency: fc.constantFrom('UGX', 'KES', null),
  key: fc.integer({ min: 0, max: 40 }),
});

type Drawn = typeof event extends fc.Arbitrary<infer T> ? T : never;

function newEvent(e: Drawn, i: number, ids: Map<string, number>): NewEvent {
  const kind =
    e.source === 'manual'
      ? 'resolution'
      : e.source === 'initiate'
        ? 'initialize_accepted'
        : e.source === 'redirect' && e.status === null
          ? 'window_closed'
          : 'outcome';
  return {
    collectionId: ids.get(e.ref) ?? null,
    merchantReference: e.ref,
    source: e.source as NewEvent['source'],
    kind: kind as NewEvent['kind'],
    status: e.status,
    receivedAt: 1_763_000_000_000 + i * 1000,
    signature: e.signature as NewEvent['signature'],
    amountMinor: e.amount,
    currency: e.currency,
    // A repeated key is the same fact again (a pull repeated, this desk's own event coming back).
    dedupeKey: `${e.source}:${e.ref}:${e.key}`,
    payload: e.source === 'callback' ? JSON.stringify({ i }) : null,
    statusMessage: e.status ? `said ${e.status}` : null,
    internalReference: e.source === 'initiate' ? `INT-${e.ref}` : null,
    paymentUrl: e.source === 'initiate' ? `https://pay.example.invalid/${e.ref}` : null,
    note: e.source === 'manual' ? 'checked with the bank' : null,
    actor: 'support_1',
  };
}

/** A migrated desk with the three collections, copied for each run (migrating a file per run is slow). */
let template = '';
beforeAll(() => {
  const dir = fileTempDir('md-append-set-');
  template = path.join(dir, 'template.sqlite');
  const db = openDatabase(template);
  withCollections(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
});

let copies = 0;
function desk(): { db: Db; ids: Map<string, number> } {
  const file = path.join(path.dirname(template), `desk-${++copies}.sqlite`);
  fs.copyFileSync(template, file);
  const db = openDatabase(file);
  opened.push(db);
  const ids = new Map(
    (db.prepare('SELECT merchant_reference, id FROM collections').raw().all() as [string, number][]).map(([r, id]) => [
      r,
      id,
    ]),
  );
  return { db, ids };
}

function withCollections(db: Db): void {
  writeTransaction(db, () => {
    for (const [k, ref] of REFS.entries())
      insertIntentCollection(db, {
        merchantReference: ref,
        createdAt: 1_762_000_000_000 + k,
        amountMinor: 10_000,
        currency: 'UGX',
        description: 'Phone order',
        customerName: null,
        customerEmail: null,
        chargeCustomer: false,
        allowFinalStatusChange: true,
        operator: 'support_1',
        providerCode: null,
        cardBrand: null,
        cardLast4: null,
        redirectUrl: 'https://merchant-desk.invalid/return',
      });
  });
}

const rows = (db: Db) => ({
  events: db.prepare('SELECT * FROM collection_events ORDER BY id').all(),
  collections: db.prepare('SELECT * FROM collections ORDER BY id').all(),
  reconciliation: db.prepare('SELECT * FROM reconciliation ORDER BY collection_id').all(),
});

describe('appendSet', () => {
  it('stores what Ledger.append stores for each event in turn, whatever the history and wherever it is cut into sets', () => {
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 10 }),
        (history, cuts) => {
          for (const db of opened.splice(0)) db.close();
          const one = desk();
          const set = desk();
          const evs = (ids: Map<string, number>) => history.map((e, i) => newEvent(e, i, ids));
          // Reconciliation reads the clock: both desks reconcile at the same moment.
          const now = Date.now;
          Date.now = () => 1_764_000_000_000;
          try {
            const a = evs(one.ids);
            for (let i = 0, c = 0; i < a.length; c++) {
              const n = cuts[c % cuts.length]!;
              ledger.batch(one.db, () => a.slice(i, i + n).forEach((e) => ledger.append(one.db, e)));
              i += n;
            }
            const b = evs(set.ids);
            const stored: (number | null)[] = [];
            for (let i = 0, c = 0; i < b.length; c++) {
              const n = cuts[c % cuts.length]!;
              ledger.batch(set.db, () => stored.push(...ledger.appendSet(set.db, b.slice(i, i + n)).ids));
              i += n;
            }
            expect(rows(set.db)).toEqual(rows(one.db));
            // A repeated key stored nothing, and said so.
            const keys = new Set<string>();
            expect(stored.map((id) => id !== null)).toEqual(
              b.map((e) => !keys.has(e.dedupeKey!) && !!keys.add(e.dedupeKey!)),
            );
          } finally {
            Date.now = now;
          }
        },
      ),
      { numRuns: 100 },
    );
  }, 120_000);

  it('refuses to run outside a write transaction, and an event of a collection that does not exist', () => {
    const { db, ids } = desk();
    const e = newEvent(
      {
        ref: REFS[0]!,
        source: 'callback',
        status: 'COMPLETED',
        signature: 'verified',
        amount: 10_000,
        currency: 'UGX',
        key: 1,
      },
      0,
      ids,
    );
    expect(() => ledger.appendSet(db, [e])).toThrow(/inside a write transaction/);
    expect(() => ledger.batch(db, () => ledger.appendSet(db, [{ ...e, collectionId: 999, dedupeKey: 'x' }]))).toThrow(
      /collection 999 does not exist/,
    );
    expect(db.prepare('SELECT count(*) FROM collection_events').pluck().get()).toBe(0);
  });
});
