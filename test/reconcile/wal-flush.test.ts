import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { walFlusher } from '../../main/reconcile/wal-flush.js';

describe('walFlusher', () => {
  it('does nothing for a database without a WAL file (in memory), and closes cleanly', async () => {
    const f = walFlusher(':memory:');
    f.kick();
    await f.close();
  });

  it('syncs a WAL file in the background, one sync at a time, and leaves the database readable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-walflush-'));
    try {
      const file = path.join(dir, 'db.sqlite');
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE t (x)');
      const f = walFlusher(file);
      for (let i = 0; i < 5; i++) {
        db.prepare('INSERT INTO t VALUES (?)').run(i);
        f.kick();
      }
      await f.close();
      f.kick(); // after close: no descriptor, nothing happens
      expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(5);
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
