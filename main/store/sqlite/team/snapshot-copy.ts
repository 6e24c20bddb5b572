// A snapshot's two tables copied into an empty desk (team/snapshot/copy-worker.ts), on a bulk connection
// of its own, inside ONE write transaction that the worker commits only once told the check passed.
// SQLite copies page by page only into a table without triggers (its transfer optimisation for
// INSERT INTO t SELECT * FROM other.t), so the triggers are dropped and made again inside the same
// transaction; foreign keys are off on this connection (the rows are the snapshot's, whose every
// collection id the check confirms).
import type { Db, ReadDb, WriteDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { bulkIndexes, bulkTriggers, presentSchema } from './bulk-schema.js';

/** Attaches the downloaded snapshot file as `snap`, read once, in order, through a memory map. */
export function attachSnapshot(db: Db, file: string): void {
  db.prepare('ATTACH DATABASE ? AS snap').run(file);
  db.pragma('snap.mmap_size = 4294967296');
}

export function detachSnapshot(db: Db): void {
  db.exec('DETACH DATABASE snap');
}

/**
 * Opens the copy's write transaction, held across the worker's messages until endCopy. Without the
 * automatic checkpoint: the copy is the whole snapshot in the WAL (about 200 MB at 100,000 collections,
 * GBs for a year), which the commit would otherwise fold into the database before it returns, while the
 * desk waits (about two thirds of the commit: 385 ms of CPU against 161 ms without it, at 100,000
 * collections). foldCopiedWal does it after the commit instead.
 */
export function beginCopy(db: Db): void {
  db.pragma('wal_autocheckpoint = 0');
  db.exec('BEGIN IMMEDIATE');
}

/**
 * After the copy committed, on the copy's own thread while the desk goes on: its WAL folded into the
 * database (PASSIVE never waits for a reader or blocks a writer), then emptied if no other connection is
 * using it at that moment (TRUNCATE without waiting: it blocks writers while it waits). A WAL left long
 * is folded by the desk's own checkpoints later; it is synced already, so nothing is at risk meanwhile.
 */
export function foldCopiedWal(db: Db): void {
  db.pragma('wal_checkpoint(PASSIVE)');
  db.pragma('busy_timeout = 0');
  db.pragma('wal_checkpoint(TRUNCATE)');
}

export function endCopy(db: Db, how: 'commit' | 'rollback'): void {
  db.exec(how === 'commit' ? 'COMMIT' : 'ROLLBACK');
}

/** Copies both tables into the (empty) desk, inside the copy's transaction. */
export function copySnapshotTables(db: WriteDb): void {
  const triggers = bulkTriggers(false);
  const present = presentSchema(db);
  for (const name of triggers.keys()) if (present.has(name)) db.exec(`DROP TRIGGER main.${name}`);
  db.exec('INSERT INTO main.collections SELECT * FROM snap.collections');
  db.exec('INSERT INTO main.collection_events SELECT * FROM snap.collection_events');
  // The transfer above copies index b-trees as they are in the file, each index's records in its order:
  // an index decides where a value goes (a forged merchant_reference index sent reference A's callback
  // to collection B), so the file's indexes are proven against its rows (indexesMatchRows, on threads of
  // their own while this copies) and this copy's are rebuilt from the rows (rebuildIndexes) before it
  // commits when they are not.
  for (const sql of triggers.values()) db.exec(sql);
  // An earlier replay cut short right after dropping them (team/sync/bulk.ts): made here.
  for (const [name, sql] of bulkIndexes()) if (!present.has(name)) db.exec(sql);
}

/** Rebuilds every index of `table` in the desk from its rows (inside the copy's transaction). */
export function rebuildIndexes(db: WriteDb, table: 'collections' | 'collection_events'): void {
  db.exec(`REINDEX main.${table}`);
}

/**
 * Whether every index of `table` in a snapshot file (opened read-only) holds exactly its rows' entries:
 * SQLite's integrity check of the table (for every row each index holds its entry, found where it
 * belongs, no index holds one more, and the b-trees are sound). It reads the file and writes nothing;
 * for a year about what a rebuild costs in CPU, but none of the rewritten pages a rebuild leaves in the
 * copy's WAL for its commit to go over again, and beside the copy rather than after it.
 */
export function indexesMatchRows(snap: ReadDb, table: 'collections' | 'collection_events'): boolean {
  return readStatement(snap, `PRAGMA integrity_check(${table})`, 'pluck').get() === 'ok';
}
