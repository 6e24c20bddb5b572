// Reconciling, in one place (issue 28): bringing the reconciliation up to date (what no event drives: a
// pending collection's stale time passing) or recomputing every collection on a worker thread. Reconciliation
// (the IPC handlers in ipc/handlers/reconcile.ts) and `merchant-desk reconcile` (cli/commands/reconcile.ts)
// are thin adapters over it.
//
// On a team desk reconciliation is the desk's own computation over its copy of the team record: the
// database decides nothing and nothing is written to it. Every desk computes the same rows from the same
// events (test/team/convergence.test.ts); a person's decision about an exception is a resolution
// (operations/resolve.ts), which the database does decide.
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import { reconcileAllInWorker, ReconcileError, type Progress, type Reconciler } from '../reconcile/index.js';

export interface ReconcileDeps {
  db: Db;
  clock: Clock;
  /** The stale-pending setting (how long a pending collection waits before it is an exception). */
  stalePendingAfterMs: () => number;
}

function options(deps: ReconcileDeps) {
  return { now: deps.clock.now(), stalePendingAfterMs: deps.stalePendingAfterMs() };
}

export interface ReconcileNowDeps extends ReconcileDeps {
  /** The process's reconciler (its composition root's): it brings up to date what no event drives. */
  reconciler: Pick<Reconciler, 'due'>;
}

/** Brings the reconciliation up to date: every stored event was reconciled as it came; time passing is left. */
export function reconcileNow(deps: ReconcileNowDeps): void {
  deps.reconciler.due(deps.db, options(deps));
}

/** Recomputes every collection on a worker thread (the desk stays responsive); cancelled by `signal`. */
export function recomputeAll(
  deps: ReconcileDeps,
  o: { signal?: AbortSignal; onProgress?: (p: Progress) => void } = {},
): Promise<{ collections: number; exceptions: number }> {
  return reconcileAllInWorker(deps.db.name, {
    ...options(deps),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  });
}

/** The one full recompute a desk runs at a time, under the id its screen gave it (cancelled by that id). */
export interface FullRuns {
  run(
    runId: string,
    o: { signal?: AbortSignal; onProgress?: (p: Progress) => void },
  ): Promise<{ collections: number; exceptions: number }>;
  cancel(runId: string): boolean;
  cancelAll(): void;
}

export function fullRuns(deps: ReconcileDeps): FullRuns {
  let current: { runId: string; ac: AbortController } | null = null;
  return {
    async run(runId, o) {
      if (current)
        throw new ReconcileError('conflict', 'a full reconciliation is already running; wait for it or cancel it');
      const ac = new AbortController();
      current = { runId, ac };
      const onGone = () => ac.abort();
      if (o.signal?.aborted) ac.abort();
      else o.signal?.addEventListener('abort', onGone, { once: true });
      try {
        return await recomputeAll(deps, { signal: ac.signal, ...(o.onProgress ? { onProgress: o.onProgress } : {}) });
      } finally {
        o.signal?.removeEventListener('abort', onGone);
        current = null;
      }
    },
    cancel(runId) {
      if (current?.runId !== runId) return false;
      current.ac.abort();
      return true;
    },
    cancelAll() {
      current?.ac.abort();
    },
  };
}
