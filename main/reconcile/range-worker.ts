// Helper thread of a full reconciliation on several threads (reconcileAllOnThreads): claims ranges of
// collection ids from a counter it shares with the other threads and computes each into a scratch
// database of its own, with its own connection, which reads the app's database and never writes it
// (main/store/sqlite/reconcile/range-scratch.ts). The writer merges each scratch file in.
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { openRangeHelper, type RangeHelper } from '../store/sqlite/reconcile/range-scratch.js';
import { messageOf } from '../errors.shared.js';

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
let helper: RangeHelper | null = null;
try {
  helper = openRangeHelper(job.dbFile);
  const claim = new Int32Array(job.claim);
  for (let k = Atomics.add(claim, 0, 1); k < job.ranges.length; k = Atomics.add(claim, 0, 1)) {
    const [lo, hi] = job.ranges[k]!;
    const file = path.join(job.dir, `range-${lo}.sqlite`);
    const { since, rows } = helper.computeRange(file, { lo, hi, now: job.now, stale: job.stalePendingAfterMs });
    const done: RangeDone = { type: 'range', lo, hi, file, since, rows };
    parentPort!.postMessage(done);
  }
} catch (e) {
  parentPort!.postMessage({ type: 'error', message: messageOf(e) });
} finally {
  helper?.close();
}
