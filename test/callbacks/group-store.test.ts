// The SQLite store appends a group's events without a savepoint each: a failure after an event's insert
// (here its projection update) must still leave nothing of the group, so that the receiver's one-by-one
// retry stores the others and never a half-stored event.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '../../main/store/db.js';
import { sqliteCallbackStore, type Delivery } from '../../main/callbacks/callback-store.js';
import { tempDir } from '../support/tmp.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from './support.js';

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
    const store = sqliteCallbackStore(db);
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

describe('sqliteCallbackStore durability', () => {
  it('a group commits without its own fsync but is answered only after the WAL is synced; FULL again around it', async () => {
    db = openDatabase(path.join(tempDir(), 'merchant-desk.db'));
    for (const reference of ['MD-S-1', 'MD-S-2']) insertCollection(db, { reference });
    const store = sqliteCallbackStore(db);
    const keys = { signingKey: SIGNING_KEY };
    const synced: string[] = [];
    // FileHandle is not exported: its prototype from a handle.
    const probe = await fs.promises.open(db.name, 'r');
    const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const datasync = proto.datasync;
    const spy = vi.spyOn(proto, 'datasync').mockImplementation(async function (this: unknown) {
      synced.push('synced');
      return datasync.call(this);
    });
    try {
      const answer = store.commitGroup([delivery('MD-S-1'), delivery('MD-S-2')], keys);
      // Committed and visible, the connection back at FULL, not yet answered.
      expect(events('MD-S-1')).toBe(1);
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect(answer).toBeInstanceOf(Promise);
      expect((await answer).map((o) => o.result)).toEqual(['imported', 'imported']);
      expect(synced).toEqual(['synced']);
    } finally {
      spy.mockRestore();
    }
    // A failed group leaves the level as it was too.
    db.exec(`CREATE TRIGGER fail_all BEFORE UPDATE ON collections BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    insertCollection(db, { reference: 'MD-S-3' });
    expect(() => store.commitGroup([delivery('MD-S-3')], keys)).toThrow(/injected failure/);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });
});
