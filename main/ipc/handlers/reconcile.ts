// Reconciliation handlers: the reads of the screens (app/desk-queries.ts) and adapters over resolving
// (operations/resolve.ts) and the full recompute (operations/reconcile.ts), bound to the desk
// (app/desk-operations.ts).
import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
import type { reconcileChannels } from '../contract/reconcile.js';
import type { HandlersFor } from './types.js';

/** What these handlers call on the desk. */
export type ReconcileOperations = Pick<Operations, 'cancelReconcileRun' | 'reconcileRun' | 'resolve'>;
export type ReconcileQueries = Pick<
  Queries,
  | 'audit'
  | 'balanceMovement'
  | 'exceptionDetail'
  | 'exceptions'
  | 'orphanCallbacks'
  | 'reconcileCurrencies'
  | 'reconcileSummary'
  | 'securityLog'
>;

export const reconcileHandlers = (
  ops: ReconcileOperations,
  q: ReconcileQueries,
): HandlersFor<typeof reconcileChannels> => ({
  'reconcile.summary': () => q.reconcileSummary(),
  'reconcile.exceptions': (r) => q.exceptions(r),
  'reconcile.currencies': () => q.reconcileCurrencies(),
  'reconcile.orphans': (r) => q.orphanCallbacks(r),
  'reconcile.detail': ({ collectionId }) => q.exceptionDetail(collectionId),
  'reconcile.resolve': (r) => ops.resolve(r),
  'reconcile.audit': (r) => q.audit(r),
  // The full run in flight (one at a time), cancellable by the id the renderer gave it.
  'reconcile.run': ({ runId }, ctx) => ops.reconcileRun(runId, { signal: ctx.signal }),
  'reconcile.cancelRun': ({ runId }) => ({ cancelled: ops.cancelReconcileRun(runId) }),
  'reconcile.balanceMovement': (r) => q.balanceMovement(r),
  'reconcile.securityLog': (r) => q.securityLog(r),
});
