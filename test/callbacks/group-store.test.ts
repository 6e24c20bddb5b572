// The SQLite store appends a group's events without a savepoint each: a failure after an event's insert
// (here its projection update) must still leave nothing of the group, so that the receiver's one-by-one
// retry stores the others and never a half-stored event.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { sqliteCallbackStore, type Delivery } from '../../main/callbacks/callback-store.js';
import { tempDir } from '../support/tmp.js';
import { insertCollection } from '../collections/helpers.js';
import { startCallbackReceiver } from '../../main/callbacks/receiver.js';
import { systemClock } from '../../main/clock.js';
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

describe('sqliteCallbackStore: durable before answered, without the main thread waiting for the disk', () => {
  it("a group's outcomes come only after its WAL is synced; the connection's other writes keep synchronous=FULL", async () => {
    db = openDatabase(path.join(tempDir(), 'merchant-desk.db'));
    const refs = ['MD-W-1', 'MD-W-2'];
    for (const reference of refs) insertCollection(db, { reference });
    const syncs: { file: string; done: () => void }[] = [];
    const store = sqliteCallbackStore(db, {
      syncWal: (file) => new Promise<void>((resolve) => syncs.push({ file, done: resolve })),
    });
    let answered = false;
    const outcomes = Promise.resolve(store.commitGroup(refs.map(delivery), { signingKey: SIGNING_KEY })).then((o) => {
      answered = true;
      return o;
    });
    await new Promise((r) => setTimeout(r, 20));
    // Committed (another reader sees it), but not answered until the sync of this database's WAL is done.
    expect(refs.map(events)).toEqual([1, 1]);
    expect(syncs.map((s) => s.file)).toEqual([db.name]);
    expect(answered).toBe(false);
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL again for every other write
    syncs[0]!.done();
    expect((await outcomes).map((o) => o.result)).toEqual(['imported', 'imported']);
  });

  it('a failed sync fails the group; the delivery sent again is a duplicate, answered only after a sync that succeeds', async () => {
    db = openDatabase(path.join(tempDir(), 'merchant-desk.db'));
    insertCollection(db, { reference: 'MD-W-3' });
    let fail = true;
    let synced = 0;
    const store = sqliteCallbackStore(db, {
      syncWal: async () => {
        if (fail) throw new Error('EIO: injected sync failure');
        synced += 1;
      },
    });
    const keys = { signingKey: SIGNING_KEY };
    await expect(Promise.resolve(store.commitGroup([delivery('MD-W-3')], keys))).rejects.toThrow(
      /injected sync failure/,
    );
    fail = false;
    const again = await store.commitGroup([delivery('MD-W-3')], keys);
    expect(again.map((o) => o.result)).toEqual(['duplicate']);
    expect(synced).toBe(1);
    expect(events('MD-W-3')).toBe(1);
  });

  it('through the receiver: a delivery whose sync failed is answered 5xx (the service sends it again)', async () => {
    db = openDatabase(path.join(tempDir(), 'merchant-desk.db'));
    insertCollection(db, { reference: 'MD-W-4' });
    const store = sqliteCallbackStore(db, {
      syncWal: () => Promise.reject(new Error('EIO: injected sync failure')),
    });
    const rx = await startCallbackReceiver({
      db,
      store,
      clock: systemClock,
      getKeys: () => ({ signingKey: SIGNING_KEY }),
      port: 0,
    });
    try {
      const body = callbackBody('MD-W-4');
      const res = await fetch(rx.url, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'hmac-signature': hmacHeader(body) },
      });
      expect(res.status).toBe(500);
    } finally {
      await rx.close();
    }
  });
});
