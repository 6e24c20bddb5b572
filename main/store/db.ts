import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrations as allMigrations, type Migration } from './migrations/index.js';
import { writeTransaction } from './transaction.js';
import { ensurePrivateDir, ensurePrivateFile } from './private-files.js';
import { DeskError } from '../errors.shared.js';

export type Db = Database.Database;

export class StoreError extends DeskError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('store', message, opts);
  }
}

/**
 * Opens (creating if needed) the app database: WAL, foreign keys on, migrations applied.
 * Refuses a database written by a newer version of the app instead of guessing.
 *
 * The folder is owner-only (0700) and the file 0600; SQLite gives the -wal and -shm files the mode of
 * the database file, and looser files left by older versions are tightened here.
 */
export function openDatabase(file: string, migrations: Migration[] = allMigrations): Db {
  ensurePrivateDir(path.dirname(file));
  ensurePrivateFile(file);
  for (const side of [`${file}-wal`, `${file}-shm`]) if (fs.existsSync(side)) ensurePrivateFile(side);
  const db = new Database(file);
  // First, so every later step (the switch to WAL, the migrations) waits for another process instead of failing.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  // FULL, not NORMAL: a callback answered 2xx is never sent again, so its commit must survive a power
  // loss; under WAL, NORMAL may lose the last commits (it syncs only at checkpoints). The callback store
  // commits a group with NORMAL and answers it only after syncing the WAL itself (callbacks/callback-store.ts).
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

export function migrate(db: Db, migrations: Migration[] = allMigrations): void {
  const latest = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const version = () => db.pragma('user_version', { simple: true }) as number;
  const refuseNewer = (current: number) => {
    if (current > latest) {
      throw new StoreError(
        `the database is at schema version ${current}, newer than this app knows (${latest}); use a newer Merchant Desk`,
      );
    }
  };
  const before = version();
  refuseNewer(before);
  if (before === latest) return;
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    // The version is read again inside the write transaction: another process opening the same new
    // folder at the same moment may have applied this migration while we waited for the lock.
    writeTransaction(db, () => {
      const current = version();
      refuseNewer(current);
      if (m.version <= current) return;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    });
  }
}
