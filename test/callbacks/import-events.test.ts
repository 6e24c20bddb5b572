// What a team desk records before it imports a file: the events the import will store, found without
// storing anything. They must be exactly the events the import then stores (same keys, statuses,
// payloads), or the sync would bring back a second copy of each.
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { eventsOfImport, importCallbacksText } from '../../main/callbacks/import-jsonl.js';
import { tempDir } from '../support/tmp.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from './support.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

const clock = { now: () => 1_790_000_000_000 };

function file(): string {
  const known = callbackBody('MD-E-00000001');
  const orphan = callbackBody('NOT-OURS-0002', 'FAILED');
  const forged = callbackBody('MD-E-00000001', 'CANCELLED');
  return (
    [
      { headers: { 'HMAC-Signature': hmacHeader(known, SIGNING_KEY) }, body: known },
      // the same callback again, as its raw text: a line of its own (the team judges it a repeat)
      { headers: { 'hmac-signature': hmacHeader(known, SIGNING_KEY) }, body: JSON.stringify(known, null, 2) },
      { headers: { 'hmac-signature': hmacHeader(orphan, SIGNING_KEY) }, body: orphan },
      { headers: { 'hmac-signature': hmacHeader(forged, 'not-the-key') }, body: forged },
      '{"headers": {}, "body": ',
    ]
      .map((l) => (typeof l === 'string' ? l : JSON.stringify(l)))
      .join('\n') + '\n'
  );
}

describe('eventsOfImport', () => {
  it('gives exactly the events the import stores, stores nothing itself, and leaves forged and malformed lines out', async () => {
    const db = openDatabase(path.join(tempDir(), 'merchant-desk.db'));
    try {
      insertCollection(db, { reference: 'MD-E-00000001' });
      const count = () => db.prepare('SELECT COUNT(*) FROM collection_events').pluck().get() as number;
      const before = count();

      const lines = await eventsOfImport(Readable.from([file()]), { keys: { signingKey: SIGNING_KEY }, clock });
      expect(count()).toBe(before);
      expect(
        lines.map((l) => [l.line, l.event.merchantReference, l.event.status, l.event.signature, l.event.source]),
      ).toEqual([
        [1, 'MD-E-00000001', 'COMPLETED', 'verified', 'import'],
        [2, 'MD-E-00000001', 'COMPLETED', 'verified', 'import'],
        [3, 'NOT-OURS-0002', 'FAILED', 'verified', 'import'],
      ]);
      // The same body twice is one key: what the import stores is each key once.
      const evs = lines
        .map((l) => l.event)
        .filter((e, i, all) => all.findIndex((x) => x.dedupeKey === e.dedupeKey) === i);

      const summary = await importCallbacksText(db, file(), { keys: { signingKey: SIGNING_KEY }, clock, ledger });
      expect(summary).toMatchObject({ imported: 2, duplicates: 1, badSignatures: 1, malformed: 1 });
      const stored = db
        .prepare(
          `SELECT merchant_reference, status, dedupe_key, payload, amount_minor, currency, internal_reference, note
           FROM collection_events WHERE source = 'import' ORDER BY id`,
        )
        .all();
      expect(stored).toEqual(
        evs.map((e) => ({
          merchant_reference: e.merchantReference,
          status: e.status,
          dedupe_key: e.dedupeKey,
          payload: e.payload,
          amount_minor: e.amountMinor,
          currency: e.currency,
          internal_reference: e.internalReference,
          note: e.note ?? null,
        })),
      );
    } finally {
      db.close();
    }
  });
});
