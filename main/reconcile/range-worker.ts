// Helper thread of a full reconciliation on several threads (reconcileAllOnThreads): claims ranges of
// collection ids from a counter it shares with the other threads and computes each into a scratch
// database of its own, with its own connection, which reads the app's database and never writes it.
// The writer copies each scratch file in.
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from '../store/sqlite/connection.js';
import {
  kindSetsSql,
  RANGE_STORED_SQL,
  RECONCILIATION_DDL_SQL,
  SCRATCH_NEW_SQL,
  SCRATCH_SQL,
  scratchTablesSql,
} from './full-sql.js';

export interface RangeJob {
  dbFile: string;
  /** The folder for scratch files (the writer removes it). */
  dir: string;
  /** Every range of the run; a thread takes the one at Atomics.add(claim, 0, 1) until none is left. */
  ranges: [number, number][];
  claim: SharedArrayBuffer;
  now: number;
  stalePendingAfterMs: number;
}

/** A range computed into `file`; collections with an event after `since` are the writer's to redo. */
export interface RangeDone {
  type: 'range';
  lo: number;
  hi: number;
  file: string;
  since: number;
  /** How many collections the range holds. */
  rows: number;
}

const job = workerData as RangeJob;
// This connection writes only its scratch files, whose rows are keyed by ids it has just read.
const db = openConnection(job.dbFile, 'bulk');
try {
  for (const sql of kindSetsSql()) db.exec(sql);
  const since = db.prepare('SELECT COALESCE(MAX(id), 0) FROM collection_events').pluck();
  const inRange = db.prepare('SELECT COUNT(*) FROM collections WHERE id BETWEEN ? AND ?').pluck();
  const stored = db.prepare(RANGE_STORED_SQL).pluck();
  const tables = scratchTablesSql(db.prepare(RECONCILIATION_DDL_SQL).all() as { type: string; sql: string }[]);
  const claim = new Int32Array(job.claim);
  for (let k = Atomics.add(claim, 0, 1); k < job.ranges.length; k = Atomics.add(claim, 0, 1)) {
    const [lo, hi] = job.ranges[k]!;
    const file = path.join(job.dir, `range-${lo}.sqlite`);
    db.prepare('ATTACH ? AS scratch').run(file);
    // A scratch file is read once, by the writer, and removed: no journal, no sync.
    db.pragma('scratch.journal_mode = OFF');
    db.pragma('scratch.synchronous = OFF');
    // Read before the statement's snapshot: an event appended meanwhile is redone by the writer.
    const first = since.get() as number;
    for (const sql of tables) db.exec(sql);
    const params = { lo, hi, now: job.now, stale: job.stalePendingAfterMs };
    // Should a row be stored after this probe (the app reconciles as events arrive), the writer's copy
    // of new rows fails on its key and it upserts them instead (reconcile.ts).
    if (stored.get(lo, hi)) {
      db.prepare(SCRATCH_SQL[0]!).run(params);
      db.exec(SCRATCH_SQL[1]!);
      db.exec(SCRATCH_SQL[2]!);
    } else db.prepare(SCRATCH_NEW_SQL).run(params);
    db.exec('DETACH scratch');
    const done: RangeDone = { type: 'range', lo, hi, file, since: first, rows: inRange.get(lo, hi) as number };
    parentPort!.postMessage(done);
  }
} catch (e) {
  parentPort!.postMessage({ type: 'error', message: e instanceof Error ? e.message : String(e) });
} finally {
  db.close();
}
