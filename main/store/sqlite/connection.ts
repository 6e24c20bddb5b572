import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrations as allMigrations, type Migration } from './migrations/index.js';
import { writeTransaction } from './transaction.js';
import { ensurePrivateDir, ensurePrivateFile } from './private-files.js';
import { StoreError } from '../store-error.js';
import { intValue } from '../columns.js';

export { StoreError };

export type { Db, ReadDb, ReadStatement, WriteDb } from './handles.js';
import type { Db } from './handles.js';

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

/**
 * How each kind of connection is set up, in one place:
 * - `reader`: a worker that reads an already migrated database (an export segment). A small page cache:
 *   a segment reads its rows once, in index order; better-sqlite3's 16 MB default per connection was
 *   paid once per worker (two workers reading 300,000 rows each peaked 122 MB with it, 99 MB without).
 * - `bulk`: a worker that writes its own rows in bulk (the snapshot copy). Foreign keys off: its rows are
 *   keyed by ids it has just read. A large cache and a memory map.
 * - `pass`: a full reconciliation's connections (its writer and the range helpers' scratch sets): as
 *   `bulk`, with an 8 MB page cache. The memory map serves its reads; three 64 MB caches, freed when the
 *   pass ends, stayed resident in the process as malloc's free memory (an export right after a year's
 *   full reconciliation peaked at 165-183 MB of RSS with them, 115-118 MB without; the pass took
 *   1.92-1.97 s either way: `npm run bench`, 27 Nov).
 * - `snapshot`: a downloaded snapshot file, read once, in order, read only, through a memory map.
 * - `scratch`: an in-memory database for a throwaway comparison (the fresh schema a snapshot is held to).
 * The app's own connection (`openDatabase`) is the fifth: WAL, FULL sync, foreign keys, migrations.
 */
export type ConnectionProfile = 'reader' | 'bulk' | 'pass' | 'snapshot' | 'scratch';

/**
 * The memory map the profiles ask for. better-sqlite3 is built with SQLITE_MAX_MMAP_SIZE=0x7fff0000, so
 * SQLite maps at most the file's first 2,147,418,112 bytes whatever is asked (`PRAGMA mmap_size`
 * answers that): a year of 1M collections (1.85 GB) is mapped whole, a bigger file only in part, and its
 * pages past the map are read with pread into the connection's page cache (issue 40: a cost per page
 * past 2 GB, not a different plan). Asked as 4 GB so that a build with a larger cap maps more.
 */
const MMAP_BYTES = 4294967296;

/** Opens a connection to an existing database (or `:memory:` for `scratch`) set up for `profile`. */
export function openConnection(file: string, profile: ConnectionProfile): Db {
  if (profile === 'scratch') return new Database(':memory:');
  if (profile === 'snapshot') {
    const snap = new Database(file, { readonly: true, fileMustExist: true });
    snap.pragma(`mmap_size = ${MMAP_BYTES}`);
    return snap;
  }
  // Not fileMustExist: SQLite gives ATTACHed files the main connection's open flags, and a bulk worker
  // attaches scratch files it creates.
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  if (profile === 'reader') {
    db.pragma('cache_size = -2000');
  } else {
    db.pragma('foreign_keys = OFF');
    db.pragma('temp_store = MEMORY');
    db.pragma(profile === 'pass' ? 'cache_size = -8192' : 'cache_size = -65536');
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
  }
  return db;
}

export function migrate(db: Db, migrations: Migration[] = allMigrations): void {
  const latest = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const version = () => intValue(db.pragma('user_version', { simple: true }), 'user_version');
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
  // All pending migrations in one write transaction, under a longer wait than a day's writes get: a
  // new data folder opened by several processes at once (the CLI and the app, two windows) waits once
  // for whichever migrates it, then finds it done. One transaction per migration made each opener queue
  // for the lock 22 times; on a loaded machine (CI) 8 of 12 openers gave up with "database is locked".
  const busy = intValue(db.pragma('busy_timeout', { simple: true }), 'busy_timeout');
  db.pragma(`busy_timeout = ${Math.max(busy, MIGRATION_WAIT_MS)}`);
  try {
    writeTransaction(db, () => {
      // Read again under the write lock: another process may have migrated while we waited for it.
      const current = version();
      refuseNewer(current);
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (m.version <= current) continue;
        db.exec(m.sql);
        db.pragma(`user_version = ${m.version}`);
      }
    });
  } finally {
    db.pragma(`busy_timeout = ${busy}`);
  }
}

/** How long opening a database waits for another process that is migrating it. */
const MIGRATION_WAIT_MS = 60_000;

/**
 * Folds the WAL into the database file now and empties it (a checkpoint with TRUNCATE): after a large copy,
 * or before a database file is moved, so nothing it holds is left only in the -wal file.
 */
export function checkpointWal(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}
