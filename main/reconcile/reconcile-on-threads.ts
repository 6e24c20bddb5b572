// The full recompute on several threads: helper threads (range-worker.ts) compute ranges of collections
// into scratch files while this connection copies each finished range in, and computes a range itself
// whenever none is waiting. The same result as reconcileAll (reconcile.ts), whose run it shares.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Db } from '../store/sqlite/connection.js';
import { changedSince, mergeScratch, withScratchAttached } from '../store/sqlite/reconcile/full-pass.js';
import { walFlusher } from '../store/sqlite/wal-sync.js';
import { launchWorker } from '../platform/launch-worker.js';
import { ReconcileError } from './errors.js';
import type { RangeDone, RangeJob } from './range-worker.js';
import { startRun, type FullRun, type ReconcileAllOptions } from './reconcile.js';

/** The helper threads of one run: the ranges they finished, in order, and the first failure of any. */
interface Helpers {
  ready: RangeDone[];
  failure(): Error | null;
  /** Resolves when a helper finishes a range or fails. */
  next(): Promise<void>;
  workers: Worker[];
}

/** Starts `threads` helpers, each claiming the next range from `claim` and computing it into `dir`. */
function startHelpers(db: Db, run: FullRun, dir: string, claim: Int32Array, threads: number): Helpers {
  const ready: RangeDone[] = [];
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const fail = (e: Error) => {
    failure ??= e;
    wake?.();
  };
  const workers = Array.from({ length: threads }, () => {
    const job: RangeJob = {
      dbFile: db.name,
      dir,
      ranges: run.ranges,
      claim: claim.buffer as SharedArrayBuffer,
      now: run.o.now,
      stalePendingAfterMs: run.o.stalePendingAfterMs,
    };
    const w = launchWorker(import.meta.url, 'range-worker', job, {
      maxYoungGenerationSizeMb: 8,
      maxOldGenerationSizeMb: 64,
    });
    w.on('message', (m: RangeDone | { type: 'error'; message: string }) => {
      if (m.type === 'range') {
        ready.push(m);
        wake?.();
      } else fail(new Error(m.message));
    });
    w.on('error', fail);
    w.on('exit', (code) => {
      if (code !== 0) fail(new Error(`reconciliation helper stopped (exit code ${code})`));
    });
    return w;
  });
  return {
    ready,
    failure: () => failure,
    async next() {
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    },
    workers,
  };
}

/**
 * Copies a helper's range in: new rows by the transfer optimization, changed ones upserted (mergeScratch);
 * collections that gained an event since the helper's snapshot are classified again here. Its scratch
 * file is removed whatever happens.
 */
function storeHelperRange(db: Db, run: FullRun, r: RangeDone): void {
  try {
    withScratchAttached(db, r.file, () =>
      run.store(
        r.lo,
        r.hi,
        () => {
          mergeScratch(db);
          return r.rows;
        },
        () => changedSince(db, r.since, r.lo, r.hi),
      ),
    );
  } finally {
    fs.rmSync(r.file, { force: true });
  }
}

/**
 * reconcileAll with the statements computed by `threads` helper threads (range-worker.ts), each with
 * its own read connection and scratch files, and by this connection, which copies each helper's range in
 * and classifies what the statement left undecided. Every thread claims the next range from one shared
 * counter: the run is bound by CPU (the aggregation over the index), so this connection computes a range
 * itself, straight into reconciliation (no scratch file to write and copy), whenever no helper's range
 * is waiting, instead of idling. A range's collections that gained an event after its helper's snapshot
 * are classified again by the writer.
 */
export async function reconcileAllOnThreads(
  db: Db,
  options: ReconcileAllOptions & {
    threads?: number;
    /** false: this connection only copies the helpers' ranges in (tests use it to cover that path). */
    writerComputes?: boolean;
  } = {},
): Promise<{ collections: number; exceptions: number }> {
  // The first ranges are small, so this connection starts writing soon instead of idling while each
  // helper computes a whole range; they double up to the full span.
  const run = startRun(db, options, true);
  const threads = Math.max(1, Math.min(options.threads ?? 1, run.ranges.length));
  if (run.ranges.length === 0) {
    run.begin();
    return run.finish();
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-reconcile-'));
  // The index of the next range nobody has claimed (Atomics.add by each thread).
  const claim = new Int32Array(new SharedArrayBuffer(4));
  const helpers = startHelpers(db, run, dir, claim, threads);
  const flusher = walFlusher(db.name);
  try {
    run.begin(); // while the helpers compute their first ranges
    for (let stored = 0; stored < run.ranges.length;) {
      const failure = helpers.failure();
      if (failure) throw failure;
      if (options.signal?.aborted) throw new ReconcileError('cancelled', 'reconciliation cancelled');
      const r = helpers.ready.shift();
      if (r) storeHelperRange(db, run, r);
      else {
        const k = options.writerComputes === false ? run.ranges.length : Atomics.add(claim, 0, 1);
        if (k >= run.ranges.length) {
          await helpers.next();
          continue;
        }
        // Computed and written in one transaction: no snapshot of another connection to catch up on.
        const [lo, hi] = run.ranges[k]!;
        run.store(lo, hi, () => run.computeHere(lo, hi));
      }
      stored++;
      flusher.kick();
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await flusher.close();
    await Promise.all(helpers.workers.map((w) => w.terminate()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return run.finish();
}
