// The SQLite store appends a group's events without a savepoint each: a failure after an event's insert
// (here its projection update) must still leave nothing of the group, so that the receiver's one-by-one
// retry stores the others and never a half-stored event.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { sqliteCallbackStore, type Delivery } from '../../main/callbacks/callback-store.js';
import { tempDir } from '../support/tmp.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from './support.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

let db: Db;
afterEach(() => db?.close());

const delivery = (reference: string): Delivery => {
  const body = callbackBody(reference);
  return {
    input: {
      body: Buffer.from(JSON.stringify(body)),
      headers: { 'hmac-signature': hmacHeader(body) },
      source: 'callback',
    },
    now: Date.now(),
  };
};
const events = (ref: string) =>
  db.prepare('SELECT count(*) FROM collection_events WHERE merchant_reference = ?').pluck().get(ref);

describe('sqliteCallbackStore', () => {
  it('a throw after an insert rolls the whole group back; alone, the others are stored', async () => {
    db = openDatabase(path.join(tempDir(), 'merchant-desk.db'));
    const refs = ['MD-G-1', 'MD-G-2', 'MD-G-3'];
    for (const reference of refs) insertCollection(db, { reference });
    db.exec(`CREATE TRIGGER fail_projection BEFORE UPDATE ON collections WHEN NEW.merchant_reference = 'MD-G-2'
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    const store = sqliteCallbackStore(db, ledger);
    const keys = { signingKey: SIGNING_KEY };
    expect(() => store.commitGroup(refs.map(delivery), keys)).toThrow(/injected failure/);
    expect(refs.map(events)).toEqual([0, 0, 0]);
    expect(db.inTransaction).toBe(false);

    const alone: string[] = [];
    for (const ref of refs) {
      try {
        alone.push((await store.commitGroup([delivery(ref)], keys))[0]!.result);
      } catch {
        alone.push('failed');
      }
    }
    expect(alone).toEqual(['imported', 'failed', 'imported']);
    expect(refs.map(events)).toEqual([1, 0, 1]);
    // A retry of a stored one is a duplicate, found without a look-up before the insert.
    expect((await store.commitGroup([delivery('MD-G-1')], keys))[0]!.result).toBe('duplicate');
    expect(events('MD-G-1')).toBe(1);
  });
});
