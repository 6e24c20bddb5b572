// The database under a second process, across power loss, against rewrites and other users: all with
// real SQLite files and real child processes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { migrations } from '../../main/store/sqlite/migrations/index.js';
import { getCollection } from '../../main/collections/query.js';
import { openActiveProfileDatabase } from '../../main/settings/profile-database.js';
import { dataPaths } from '../../main/settings/paths.js';
import { tempDir } from '../support/tmp.js';
import { insertCollection } from '../collections/helpers.js';
import { holdWriteLock, openFromProcesses } from './second-process.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

const LATEST = Math.max(...migrations.map((m) => m.version));

function fresh() {
  const file = path.join(tempDir(), 'merchant-desk.sqlite');
  return { file, db: openDatabase(file) };
}

describe('writes while another process holds the write lock', () => {
  it('an event append (reads, then writes) waits for the lock instead of failing with "database is locked"', async () => {
    const { file, db } = fresh();
    const id = insertCollection(db, { reference: 'MD-LOCK-0001', status: 'PENDING' });
    const lock = await holdWriteLock(file, 1000);
    // Synchronous, like every better-sqlite3 call: it waits (busy_timeout) while the other process holds the lock.
    const r = ledger.append(db, {
      collectionId: id,
      merchantReference: 'MD-LOCK-0001',
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: Date.now(),
      signature: 'verified',
      dedupeKey: 'callback:lock-test',
    });
    await lock.released;
    expect(r.inserted).toBe(true);
    expect(getCollection(db, 'MD-LOCK-0001')!.collection.status).toBe('COMPLETED');
    // The other process's write is there too.
    expect(db.prepare("SELECT value FROM settings WHERE key = 'second-process'").pluck().get()).toBe('1');
  });
});

describe('opening a new data folder', () => {
  it('from many processes at once: all succeed and the schema is at the latest version', async () => {
    const file = path.join(tempDir(), 'new', 'merchant-desk.sqlite');
    const results = await openFromProcesses(file, 12);
    expect(results).toEqual(Array.from({ length: 12 }, () => `ok ${LATEST}`));
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST);
    db.close();
  }, 60_000);

  it('an older one, while another process holds the write lock longer than a write waits (its migration): waits and opens', async () => {
    const file = path.join(tempDir(), 'merchant-desk.sqlite');
    openDatabase(file, migrations.slice(0, -1)).close();
    const lock = await holdWriteLock(file, 7000);
    const db = openDatabase(file);
    await lock.released;
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST);
    db.close();
  }, 30_000);
});

describe('durability', () => {
  it('commits are synced to disk (synchronous = FULL) on the connection the receiver writes with', () => {
    const { db } = fresh();
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  });
});

describe('append-only history', () => {
  it('INSERT OR REPLACE of an existing event id is refused and event 1 is unchanged', () => {
    const { db } = fresh();
    const id = insertCollection(db, { reference: 'MD-APPEND-0001' });
    ledger.append(db, {
      collectionId: id,
      merchantReference: 'MD-APPEND-0001',
      source: 'intent',
      kind: 'intent_saved',
      status: 'INTENT',
      receivedAt: 1000,
      signature: 'not_applicable',
    });
    const before = db.prepare('SELECT * FROM collection_events WHERE id = 1').get();
    for (const verb of ['INSERT OR REPLACE INTO', 'REPLACE INTO']) {
      expect(() =>
        db
          .prepare(
            `${verb} collection_events (id, merchant_reference, source, kind, status, received_at, signature) VALUES (1, 'MD-APPEND-0001', 'manual', 'outcome', 'COMPLETED', 2000, 'not_applicable')`,
          )
          .run(),
      ).toThrow(/append-only/);
    }
    expect(db.prepare('SELECT * FROM collection_events WHERE id = 1').get()).toEqual(before);
    expect(db.prepare('SELECT COUNT(*) FROM collection_events').pluck().get()).toBe(1);
  });

  it('INSERT OR REPLACE with a stored dedupe key does not rewrite that event', () => {
    const { db } = fresh();
    const id = insertCollection(db, { reference: 'MD-APPEND-0002' });
    ledger.append(db, {
      collectionId: id,
      merchantReference: 'MD-APPEND-0002',
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: 1000,
      signature: 'verified',
      dedupeKey: 'callback:k1',
    });
    const before = db.prepare('SELECT * FROM collection_events').all();
    db.prepare(
      `INSERT OR REPLACE INTO collection_events (merchant_reference, source, kind, status, received_at, signature, dedupe_key) VALUES ('MD-APPEND-0002', 'manual', 'outcome', 'FAILED', 2000, 'not_applicable', 'callback:k1')`,
    ).run();
    expect(db.prepare('SELECT * FROM collection_events').all()).toEqual(before);
    // The app's own idempotent append still answers "already stored".
    const again = ledger.append(db, {
      collectionId: id,
      merchantReference: 'MD-APPEND-0002',
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: 3000,
      signature: 'verified',
      dedupeKey: 'callback:k1',
    });
    expect(again).toMatchObject({ inserted: false, eventId: 1 });
  });

  it('INSERT OR REPLACE of an existing balance snapshot id is refused', () => {
    const { db } = fresh();
    const insert = (verb: string, available: number) =>
      db
        .prepare(
          `${verb} balance_snapshots (id, observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor) VALUES (1, 1000, 'UGX', 'COLLECTION', ?, 0, 0, 0)`,
        )
        .run(available);
    insert('INSERT INTO', 500);
    expect(() => insert('INSERT OR REPLACE INTO', 999)).toThrow(/append-only/);
    expect(db.prepare('SELECT available_minor FROM balance_snapshots WHERE id = 1').pluck().get()).toBe(500);
  });
});

describe('file permissions', () => {
  it.skipIf(process.platform === 'win32')(
    'a fresh data folder is owner-only: folders 0700, database files 0600',
    () => {
      const dataDir = path.join(tempDir(), 'Merchant Desk');
      const { db } = openActiveProfileDatabase(dataDir);
      db.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('probe', '1', 0)").run();
      const p = dataPaths(dataDir);
      const mode = (f: string) => fs.statSync(f).mode & 0o777;
      expect(mode(dataDir)).toBe(0o700);
      expect(mode(p.profileDir)).toBe(0o700);
      for (const f of [p.db, `${p.db}-wal`, `${p.db}-shm`]) expect([f, mode(f)]).toEqual([f, 0o600]);
      db.close();
    },
  );

  it.skipIf(process.platform === 'win32')('a database left readable by others is tightened when opened', () => {
    const dir = tempDir();
    const file = path.join(dir, 'merchant-desk.sqlite');
    openDatabase(file).close();
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(file, 0o644);
    openDatabase(file).close();
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it.skipIf(process.platform === 'win32')(
    'a database opened straight in a shared folder (like /tmp) leaves the folder open to others',
    () => {
      const shared = tempDir();
      fs.chmodSync(shared, 0o1777);
      const file = path.join(shared, 'merchant-desk.sqlite');
      openDatabase(file).close();
      expect(fs.statSync(shared).mode & 0o7777).toBe(0o1777);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    },
  );
});
