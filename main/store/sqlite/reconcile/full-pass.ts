// The full pass's statements on the connection that writes the reconciliation table: the ranges of
// collection ids, one range classified in SQL straight into the table, a helper thread's scratch file
// merged in, what each range leaves to the rules, and the run's end. The orchestration (which range,
// when, in which transaction, the rules for what is left) is main/reconcile/reconcile.ts (and, on several
// threads, reconcile-on-threads.ts).
import type { Db, ReadDb, WriteDb } from '../connection.js';
import { openConnection } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { intOrNull, intValue, ints, rowMapper } from '../../columns.js';
import { writeTransaction } from '../transaction.js';
import {
  IDS_LEFT_TO_RULES_SQL,
  kindSetsSql,
  NEEDS_JS_SQL,
  RECONCILE_IDS_SQL,
  RECONCILE_RANGE_SQL,
  UNDECIDED_SQL,
} from './full-pass-sql.js';
import { STORE_NEW_SQL, STORE_SCRATCH_SQL } from './scratch-sql.js';

/** A range of collection ids and the clock the kinds are decided at. */
export interface RangeParams {
  lo: number;
  hi: number;
  now: number;
  /** stalePendingAfterMs. */
  stale: number;
}

/**
 * The connection a full pass runs on, off the app's thread (main/reconcile/reconcile-worker.ts): the
 * `pass` profile (a range's aggregates materialized in memory, the million-row index read through a
 * memory map; foreign keys off, since every row it writes is keyed by an id it has just read from
 * collections), and two settings of its own:
 * - synchronous NORMAL: the table is a projection that a re-run rebuilds, so a range's commit need not
 *   wait for the disk (WAL with synchronous NORMAL stays consistent after a crash); the run's last
 *   commit is synced (finishFullPass), and with it every range before it;
 * - no automatic checkpoint: each range writes more pages than its threshold, so every commit would copy
 *   the WAL back into the database (rewriting the same index pages each time): checkpointPassive, once,
 *   at the end.
 */
export function openFullPassWriter(file: string): Db {
  const db = openConnection(file, 'pass');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  return db;
}

/**
 * Lets go of what a pass connection holds once its writes are done: the memory map (every page of the
 * database the run touched, counted in the process's resident memory until unmapped: about 800 MB of a
 * year's file) and the page cache. The checkpoint that follows reads and writes through plain I/O, so a
 * caller that goes on at once (an export right after a full reconciliation) does not carry the map.
 */
export function releaseMemory(db: Db): void {
  db.pragma('mmap_size = 0');
  db.pragma('shrink_memory');
}

/** Copies the WAL back into the database; PASSIVE never waits for a reader or blocks a writer. */
export function checkpointPassive(db: Db): void {
  db.pragma('wal_checkpoint(PASSIVE)');
}

/**
 * Fills the connection's temporary table of kind sets the classifying statements join (idempotent).
 * Outside a transaction: a temporary table created inside one would go with its rollback.
 */
export function installKindSets(db: WriteDb): void {
  for (const sql of kindSetsSql()) db.exec(sql);
}

/** The lowest and highest collection id (two rowid lookups), null when there is none. */
const boundsOf = rowMapper((r) => ({ lo: intOrNull(r, 'lo'), hi: intOrNull(r, 'hi') }));

export function collectionIdBounds(db: ReadDb): { lo: number | null; hi: number | null } {
  return boundsOf(readStatement(db, 'SELECT MIN(id) AS lo, MAX(id) AS hi FROM collections').get());
}

/** Every collection (walks a million index entries at a million: take it once). */
export function collectionCount(db: ReadDb): number {
  return intValue(readStatement(db, 'SELECT COUNT(*) FROM collections', 'pluck').get(), 'count(*)');
}

/** How many collections have lo <= id <= hi. */
export function collectionsInRange(db: ReadDb, lo: number, hi: number): number {
  return intValue(
    readStatement(db, 'SELECT COUNT(*) FROM collections WHERE id BETWEEN @lo AND @hi', 'pluck').get({ lo, hi }),
    'count(*)',
  );
}

/** The newest event's id (0 for none): what a run has seen when it starts. */
export function lastEventId(db: ReadDb): number {
  return intValue(readStatement(db, 'SELECT COALESCE(MAX(id), 0) FROM collection_events', 'pluck').get(), 'max(id)');
}

/**
 * Classifies the range's collections in SQL into the reconciliation table (installKindSets first); the
 * collections undecidedIn and payloadOnlyIn list must then be classified by the rules, in the same
 * transaction.
 */
export function classifyRange(db: WriteDb, p: RangeParams): void {
  statement(db, RECONCILE_RANGE_SQL).run(p);
}

/** The range's rows classifyRange (or a merged scratch file) left to the rules. */
export function undecidedIn(db: ReadDb, lo: number, hi: number): number[] {
  return ints(readStatement(db, UNDECIDED_SQL, 'pluck').all({ lo, hi }), 'collection_id');
}

/** The range's collections that need the rules anyway: a callback-side amount only in its payload. */
export function payloadOnlyIn(db: ReadDb, lo: number, hi: number): number[] {
  return ints(readStatement(db, NEEDS_JS_SQL, 'pluck').all({ lo, hi }), 'collection_id');
}

/**
 * classifyRange for the collections of a JSON array of ids (a group of the incremental path), then the
 * ones of them left to the rules. installKindSets first, outside any transaction.
 */
export function classifyIdsLeavingRest(db: WriteDb, idsJson: string, now: number, stale: number): number[] {
  statement(db, RECONCILE_IDS_SQL).run({ ids: idsJson, now, stale });
  return ints(statement(db, IDS_LEFT_TO_RULES_SQL, 'pluck').all({ ids: idsJson }), 'collection_id');
}

/**
 * Collections of lo..hi that gained an event after `since` (a helper's snapshot). NOT INDEXED: a rowid
 * range from the snapshot on (nearly always empty), never a scan of the range's events.
 */
export function changedSince(db: ReadDb, since: number, lo: number, hi: number): number[] {
  return ints(
    readStatement(
      db,
      'SELECT DISTINCT collection_id FROM collection_events NOT INDEXED WHERE id > @since AND collection_id BETWEEN @lo AND @hi',
      'pluck',
    ).all({ since, lo, hi }),
    'collection_id',
  );
}

/**
 * Merges a helper's scratch file (range-scratch.ts) into the reconciliation table, inside the caller's
 * transaction: new rows by the transfer optimization; should a collection have gained a row since the
 * helper's snapshot (reconciled by another connection), that statement fails whole and they are
 * upserted; then the rows that replace stored ones. The scratch statements are prepared per file: each
 * names the database attached for it.
 */
export function mergeScratch(db: WriteDb): void {
  try {
    db.prepare(STORE_NEW_SQL).run();
  } catch (e) {
    if ((e as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw e;
    db.prepare(STORE_SCRATCH_SQL('rows')).run();
  }
  db.prepare(STORE_SCRATCH_SQL('changed')).run();
}

/** Attaches a scratch file as `scratch` for `fn`, then detaches it (the file is the caller's to remove). */
export function withScratchAttached<T>(db: WriteDb, file: string, fn: () => T): T {
  db.prepare('ATTACH ? AS scratch').run(file);
  try {
    return fn();
  } finally {
    db.exec('DETACH scratch');
  }
}

/**
 * Records that the run reconciled every event up to `startEvent`, in a synced commit even on a
 * connection that writes the ranges with synchronous NORMAL (openFullPassWriter): under WAL, syncing it
 * syncs every range committed before it.
 */
export function finishFullPass(db: Db, startEvent: number): void {
  const sync = intValue(db.pragma('synchronous', { simple: true }), 'synchronous');
  if (sync < 2) db.pragma('synchronous = FULL');
  try {
    writeTransaction(db, () =>
      statement(db, 'UPDATE reconcile_state SET last_event_id = MAX(last_event_id, ?) WHERE id = 1').run(startEvent),
    );
  } finally {
    if (sync < 2) db.pragma(`synchronous = ${sync}`);
  }
}

/** Collections with an open exception. */
export function exceptionCount(db: ReadDb): number {
  return intValue(
    readStatement(db, 'SELECT COUNT(*) FROM reconciliation WHERE is_exception = 1', 'pluck').get(),
    'count(*)',
  );
}
