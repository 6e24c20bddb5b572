// The WAL's fdatasync off the committing thread: syncWal syncs the WAL file and fails where it cannot
// (never resolves as if synced); the full recompute's flush-ahead is best effort, one sync at a time.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { syncWal, walFlusher } from '../../main/store/sqlite/wal-sync.js';
import { tempDir } from '../support/tmp.js';

/** Counts fdatasyncs by the file they were made on (FileHandle is not exported: its prototype from a handle). */
async function countSyncs(): Promise<{ files: string[]; restore(): void }> {
  const probe = await fs.promises.open(import.meta.filename, 'r');
  const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
  await probe.close();
  const files: string[] = [];
  const open = fs.promises.open;
  const paths = new WeakMap<object, string>();
  const openSpy = vi.spyOn(fs.promises, 'open').mockImplementation(async (...args: Parameters<typeof open>) => {
    const fh = await open(...args);
    paths.set(fh, String(args[0]));
    return fh;
  });
  const datasync = proto.datasync;
  const syncSpy = vi.spyOn(proto, 'datasync').mockImplementation(async function (this: object) {
    files.push(path.basename(paths.get(this) ?? '?'));
    return datasync.call(this);
  });
  return {
    files,
    restore: () => {
      openSpy.mockRestore();
      syncSpy.mockRestore();
    },
  };
}

let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

function walDatabase(): { db: Database.Database; file: string } {
  const file = path.join(tempDir('md-walsync-'), 'db.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x)');
  return { db, file };
}

describe('syncWal', () => {
  it("syncs the database's WAL file, and fails where there is none instead of claiming it synced", async () => {
    const spy = await countSyncs();
    restore = spy.restore;
    const { db, file } = walDatabase();
    db.prepare('INSERT INTO t VALUES (1)').run();
    await syncWal(file);
    expect(spy.files).toEqual(['db.sqlite-wal']);
    db.close(); // the last connection removes the WAL file
    await expect(syncWal(file)).rejects.toMatchObject({ code: 'ENOENT' });

    const rollback = path.join(tempDir('md-walsync-'), 'rollback.sqlite');
    new Database(rollback).exec('CREATE TABLE t (x)');
    await expect(syncWal(rollback)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(spy.files).toEqual(['db.sqlite-wal']);
  });
});

describe('walFlusher', () => {
  it('runs one background sync at a time, ignores a missing WAL, and nothing after close', async () => {
    const spy = await countSyncs();
    restore = spy.restore;
    const { db, file } = walDatabase();
    const f = walFlusher(file);
    for (let i = 0; i < 5; i++) {
      db.prepare('INSERT INTO t VALUES (?)').run(i);
      f.kick(); // the first starts a sync; the others find it under way
    }
    await f.close();
    expect(spy.files).toEqual(['db.sqlite-wal']);
    f.kick();
    await f.close();
    expect(spy.files).toHaveLength(1);
    db.close();

    const none = walFlusher(path.join(tempDir('md-walsync-'), 'missing.sqlite'));
    none.kick();
    await expect(none.close()).resolves.toBeUndefined();
  });
});
