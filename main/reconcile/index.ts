export {
  classify,
  RECON_KINDS,
  EXCEPTION_KINDS,
  KIND_LABELS,
  DEFAULT_STALE_PENDING_AFTER_MS,
  isExceptionKind,
  type ReconKind,
  type Classification,
  type ReconEvent,
  type ReconCollection,
} from './classify.js';
export {
  reconcileCollection,
  reconcileEvent,
  createReconciler,
  type Reconciler,
  type GroupRoute,
  reconcileAll,
  reconcileAllInWorker,
  type ReconcileOptions,
  type ReconcileAllOptions,
  type Progress,
} from './reconcile.js';
export {
  getSummary,
  listExceptions,
  listOrphanCallbacks,
  listCurrencies,
  getDetail,
  listAudit,
  ORPHAN_KIND,
  type ReconcileSummary,
  type ExceptionRow,
  type ExceptionFilter,
  type ExceptionDetail,
  type SourceColumn,
  type OrphanRow,
  type AuditEvent,
  type AuditFilter,
} from './exceptions.js';
export { resolveException, prepareResolution, type ResolveInput } from './resolve.js';
export {
  balanceMovement,
  type MovementInterval,
  type MovementTotals,
  type MovementResult,
  type MovementQuery,
} from './balance.js';
export { ReconcileError } from './errors.js';
