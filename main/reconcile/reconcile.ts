// Reconciliation results in SQLite: per collection (incremental, as each event is appended, and a
// set-based full recompute that gives the same answer), kept in the reconciliation table (migration 003).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { ReconcileError } from './errors.js';
import {
  kindSetsSql,
  NEEDS_JS_SQL,
  RECONCILE_RANGE_SQL,
  STORE_NEW_SQL,
  STORE_SCRATCH_SQL,
  UNDECIDED_SQL,
} from './full-sql.js';
import type { RangeDone, RangeJob } from './range-worker.js';
import { launchWorker } from './launch-worker.js';
import { walFlusher } from '../store/sqlite/wal-sync.js';
import { opts, reconcileIds, type ReconcileOptions } from './incremental.js';

export {
  reconcileCollection,
  reconcileEvent,
  setReconcileOptions,
  reconcileAfterAppend,
  reconcileDue,
  startReconcileSweep,
  type ReconcileOptions,
} from './incremental.js';

export interface Progress {
  done: number;
  total: number;
}

export interface ReconcileAllOptions extends ReconcileOptions {
  onProgress?: (p: Progress) => void;
  signal?: AbortSignal;
  /** Collection ids per transaction (default 100,000). */
  batchSize?: number;
}

/**
 * Full recompute of every collection, set-based: per range of collection ids, one INSERT ... SELECT
 * classifies inside SQLite (full-sql.ts), then classify() decides the few collections the statement
 * leaves to it, all in one transaction per range. Between ranges it yields, so a caller can show
 * progress and cancel; a cancelled run leaves every range it finished consistent, and none half-written.
 */
export async function reconcileAll(
  db: Db,
  options: ReconcileAllOptions = {},
): Promise<{ collections: number; exceptions: number }> {
  const run = startRun(db, options);
  run.begin();
  const classifyRange = db.prepare(RECONCILE_RANGE_SQL);
  const inRange = db.prepare('SELECT COUNT(*) FROM collections WHERE id BETWEEN @lo AND @hi').pluck();
  for (const [lo, hi] of run.ranges) {
    if (options.signal?.aborted) throw new ReconcileError('cancelled', 'reconciliation cancelled');
    run.store(lo, hi, () => {
      classifyRange.run(run.params(lo, hi));
      return inRange.get({ lo, hi }) as number;
    });
    await new Promise((r) => setImmediate(r));
  }
  return run.finish();
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
  const ready: RangeDone[] = [];
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const fail = (e: Error) => {
    failure ??= e;
    wake?.();
  };
  const helpers = Array.from({ length: threads }, () => {
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
  // NOT INDEXED: a rowid range from the snapshot on (nearly always empty), never a scan of the range's events.
  const changedSince = db
    .prepare(
      'SELECT DISTINCT collection_id FROM collection_events NOT INDEXED WHERE id > @since AND collection_id BETWEEN @lo AND @hi',
    )
    .pluck();
  // New rows go in by the transfer optimization; should a collection have gained a row since the
  // helper's snapshot (reconciled by another connection), that statement fails whole and they are upserted.
  const storeNew = () => {
    try {
      db.prepare(STORE_NEW_SQL).run();
    } catch (e) {
      if ((e as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw e;
      db.prepare(STORE_SCRATCH_SQL('rows')).run();
    }
  };
  const classifyRange = db.prepare(RECONCILE_RANGE_SQL);
  const inRange = db.prepare('SELECT COUNT(*) FROM collections WHERE id BETWEEN @lo AND @hi').pluck();
  const flusher = walFlusher(db.name);
  try {
    run.begin(); // while the helpers compute their first ranges
    for (let stored = 0; stored < run.ranges.length;) {
      if (failure) throw failure;
      if (options.signal?.aborted) throw new ReconcileError('cancelled', 'reconciliation cancelled');
      const r = ready.shift();
      if (!r) {
        const k = options.writerComputes === false ? run.ranges.length : Atomics.add(claim, 0, 1);
        if (k < run.ranges.length) {
          // Computed and written in one transaction: no snapshot of another connection to catch up on.
          const [lo, hi] = run.ranges[k]!;
          run.store(lo, hi, () => {
            classifyRange.run(run.params(lo, hi));
            return inRange.get({ lo, hi }) as number;
          });
          stored++;
          flusher.kick();
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      db.prepare('ATTACH ? AS scratch').run(r.file);
      try {
        run.store(
          r.lo,
          r.hi,
          () => {
            storeNew();
            db.prepare(STORE_SCRATCH_SQL('changed')).run();
            return r.rows;
          },
          () => changedSince.all({ since: r.since, lo: r.lo, hi: r.hi }) as number[],
        );
      } finally {
        db.exec('DETACH scratch');
        fs.rmSync(r.file, { force: true });
      }
      stored++;
      flusher.kick();
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await flusher.close();
    await Promise.all(helpers.map((w) => w.terminate()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return run.finish();
}

/** What both full recomputes share: the ranges, one transaction per range, progress, the totals. */
function startRun(db: Db, options: ReconcileAllOptions, rampUp = false) {
  const o = opts(options);
  const span = Math.max(1, options.batchSize ?? 100_000);
  // MIN and MAX are two rowid lookups; the count walks a million index entries, so it is taken by
  // begin(), which the threaded run calls once its helpers are already computing.
  const bounds = db.prepare('SELECT MIN(id) AS lo, MAX(id) AS hi FROM collections').get() as {
    lo: number | null;
    hi: number | null;
  };
  let total = 0;
  const startEvent = db.prepare('SELECT COALESCE(MAX(id), 0) FROM collection_events').pluck().get() as number;
  for (const sql of kindSetsSql()) db.exec(sql);
  const undecided = db.prepare(UNDECIDED_SQL).pluck();
  const payloadOnly = db.prepare(NEEDS_JS_SQL).pluck();
  const ranges: [number, number][] = [];
  for (
    let lo = bounds.lo ?? 1, size = rampUp ? Math.ceil(span / 8) : span;
    bounds.hi !== null && lo <= bounds.hi;
    lo += size
  ) {
    // rampUp: sizes span/8, span/8, span/4, span/4, span/2, span/2, then span.
    if (rampUp && ranges.length >= 2 && ranges.length % 2 === 0) size = Math.min(span, size * 2);
    ranges.push([lo, lo + size - 1]);
  }
  let done = 0;
  const params = (lo: number, hi: number) => ({ lo, hi, now: o.now, stale: o.stalePendingAfterMs });
  return {
    o,
    ranges,
    params,
    /** Counts the collections and reports progress 0 (before the first range is stored). */
    begin() {
      total = db.prepare('SELECT COUNT(*) FROM collections').pluck().get() as number;
      options.onProgress?.({ done, total });
    },
    /**
     * Writes one range's rows (`write` returns how many collections the range holds), then classify() decides the rest and the
     * collections `alsoIds` lists (read inside the transaction, so no later event slips between), all in
     * one transaction.
     */
    store(lo: number, hi: number, write: () => number, alsoIds: () => number[] = () => []) {
      const range = params(lo, hi);
      writeTransaction(db, () => {
        done += write();
        const ids = new Set([
          ...(undecided.all(range) as number[]),
          ...(payloadOnly.all(range) as number[]),
          ...alsoIds(),
        ]);
        reconcileIds(
          db,
          [...ids].sort((a, b) => a - b),
          o,
        );
      });
      options.onProgress?.({ done, total });
    },
    finish() {
      // The last commit is durable even on a connection that writes the ranges with synchronous NORMAL
      // (reconcile-worker.ts): under WAL, syncing it syncs every range committed before it.
      const sync = db.pragma('synchronous', { simple: true }) as number;
      if (sync < 2) db.pragma('synchronous = FULL');
      try {
        writeTransaction(db, () =>
          db.prepare('UPDATE reconcile_state SET last_event_id = MAX(last_event_id, ?) WHERE id = 1').run(startEvent),
        );
      } finally {
        if (sync < 2) db.pragma(`synchronous = ${sync}`);
      }
      const exceptions = db
        .prepare('SELECT COUNT(*) FROM reconciliation WHERE is_exception = 1')
        .pluck()
        .get() as number;
      return { collections: done, exceptions };
    },
  };
}

/** The stored result for one collection, or throws not_found. */
export function requireCollection(db: Db, collectionId: number): { id: number; merchant_reference: string } {
  const row = db.prepare('SELECT id, merchant_reference FROM collections WHERE id = ?').get(collectionId) as
    { id: number; merchant_reference: string } | undefined;
  if (!row) throw new ReconcileError('not_found', `no collection with id ${collectionId}`, 'collectionId');
  return row;
}

/**
 * reconcileAllOnThreads on a worker thread with its own connection: the calling (UI) thread stays free
 * and the memory of a million-row pass is released when it ends. Same result; cancel with `signal`.
 */
export function reconcileAllInWorker(
  dbFile: string,
  options: ReconcileOptions & { onProgress?: (p: Progress) => void; signal?: AbortSignal; batchSize?: number } = {},
): Promise<{ collections: number; exceptions: number }> {
  const o = opts(options);
  if (options.signal?.aborted) return Promise.reject(new ReconcileError('cancelled', 'reconciliation cancelled'));
  return new Promise((resolve, reject) => {
    const w = launchWorker(
      import.meta.url,
      'reconcile-worker',
      { dbFile, ...o, batchSize: options.batchSize },
      {
        maxYoungGenerationSizeMb: 8,
        maxOldGenerationSizeMb: 256,
      },
    );
    let settled = false;
    const end = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      // Settle first: terminate() emits 'exit' before its promise resolves, which would otherwise
      // report a cancel as "worker stopped".
      end(() => reject(new ReconcileError('cancelled', 'reconciliation cancelled')));
      void w.terminate();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    w.on(
      'message',
      (m: {
        type: string;
        done?: number;
        total?: number;
        collections?: number;
        exceptions?: number;
        message?: string;
      }) => {
        if (m.type === 'progress') options.onProgress?.({ done: m.done ?? 0, total: m.total ?? 0 });
        else if (m.type === 'done')
          end(() => resolve({ collections: m.collections ?? 0, exceptions: m.exceptions ?? 0 }));
        else if (m.type === 'error') end(() => reject(new Error(`reconciliation failed: ${m.message}`)));
      },
    );
    w.on('error', (e) => end(() => reject(e)));
    w.on('exit', (code) => end(() => reject(new Error(`reconciliation worker stopped (exit code ${code})`))));
  });
}
