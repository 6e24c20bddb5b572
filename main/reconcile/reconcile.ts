// Reconciliation results in SQLite: per collection (incremental, as each event is appended:
// incremental.ts) and a set-based full recompute that gives the same answer (here; on several threads:
// reconcile-on-threads.ts), kept in the reconciliation table (migration 003).
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import {
  classifyRange,
  collectionCount,
  collectionIdBounds,
  collectionsInRange,
  exceptionCount,
  finishFullPass,
  installKindSets,
  lastEventId,
  payloadOnlyIn,
  undecidedIn,
} from '../store/sqlite/reconcile/full-pass.js';
import { collectionReference } from '../store/sqlite/reconcile/histories.js';
import { ReconcileError } from './errors.js';
import { launchWorker } from '../platform/launch-worker.js';
import { opts, reconcileIds, type ReconcileOptions } from './incremental.js';

export {
  reconcileCollection,
  reconcileEvent,
  createReconciler,
  type Reconciler,
  type GroupRoute,
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
 * classifies inside SQLite (main/store/sqlite/reconcile/full-pass-sql.ts), then classify() decides the few collections the statement
 * leaves to it, all in one transaction per range. Between ranges it yields, so a caller can show
 * progress and cancel; a cancelled run leaves every range it finished consistent, and none half-written.
 */
export async function reconcileAll(
  db: Db,
  options: ReconcileAllOptions = {},
): Promise<{ collections: number; exceptions: number }> {
  const run = startRun(db, options);
  run.begin();
  for (const [lo, hi] of run.ranges) {
    if (options.signal?.aborted) throw new ReconcileError('cancelled', 'reconciliation cancelled');
    run.store(lo, hi, () => run.computeHere(lo, hi));
    await new Promise((r) => setImmediate(r));
  }
  return run.finish();
}

/** What both full recomputes (reconcileAll, and reconcile-on-threads.ts) share: the ranges, one transaction per range, progress, the totals. */
export function startRun(db: Db, options: ReconcileAllOptions, rampUp = false) {
  const o = opts(options);
  const span = Math.max(1, options.batchSize ?? 100_000);
  // MIN and MAX are two rowid lookups; the count walks a million index entries, so it is taken by
  // begin(), which the threaded run calls once its helpers are already computing.
  const bounds = collectionIdBounds(db);
  let total = 0;
  const startEvent = lastEventId(db);
  installKindSets(db);
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
      total = collectionCount(db);
      options.onProgress?.({ done, total });
    },
    /** Computes a range's rows in SQL on this connection; returns how many collections it holds. */
    computeHere(lo: number, hi: number): number {
      classifyRange(db, params(lo, hi));
      return collectionsInRange(db, lo, hi);
    },
    /**
     * Writes one range's rows (`write` returns how many collections the range holds), then classify() decides the rest and the
     * collections `alsoIds` lists (read inside the transaction, so no later event slips between), all in
     * one transaction.
     */
    store(lo: number, hi: number, write: () => number, alsoIds: () => number[] = () => []) {
      writeTransaction(db, () => {
        done += write();
        const ids = new Set([...undecidedIn(db, lo, hi), ...payloadOnlyIn(db, lo, hi), ...alsoIds()]);
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
      // (reconcile-worker.ts).
      finishFullPass(db, startEvent);
      return { collections: done, exceptions: exceptionCount(db) };
    },
  };
}

/** A full recompute's ranges and steps (startRun). */
export type FullRun = ReturnType<typeof startRun>;

/** The stored result for one collection, or throws not_found. */
export function requireCollection(db: Db, collectionId: number): { id: number; merchant_reference: string } {
  const row = collectionReference(db, collectionId);
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
