// Plain JSON shapes of reconciliation results, shared by main, the IPC contract and the renderer.
// No imports with side effects or node types here: the renderer and preload type-check against it.
// The stored kinds (their names, priority order and which are exceptions) are the reconciliation
// table's vocabulary, defined once in the store.
import type { ReconKind } from '../store/sqlite/reconcile/kinds.shared.js';
export type { ReconKind };
export { EXCEPTION_KINDS } from '../store/sqlite/reconcile/kinds.shared.js';

export interface ReconcileSummary {
  collections: number;
  /** Collections by primary outcome. */
  byOutcome: Record<string, number>;
  openExceptions: number;
  /** Open exceptions by kind (a collection can count under several kinds), plus orphan_callback. */
  openByKind: Record<string, number>;
  orphans: { total: number; open: number };
  resolved: number;
  computedAt: string;
}

export interface SourceStatusesJson {
  initiate: string | null;
  redirect: string | null;
  callback: string | null;
  import: string | null;
  manual: string | null;
}

export interface ExceptionRow {
  collectionId: number;
  merchantReference: string;
  internalReference: string | null;
  createdAt: string;
  amountMinor: number;
  currency: string;
  status: string;
  customerName: string | null;
  outcome: ReconKind;
  kinds: ReconKind[];
  openKinds: ReconKind[];
  isException: boolean;
  resolvedByEventId: number | null;
  resolutionNote: string | null;
  sources: SourceStatusesJson;
  computedAt: string;
}

export interface OrphanRow {
  eventId: number;
  merchantReference: string;
  internalReference: string | null;
  source: string;
  status: string | null;
  receivedAt: string;
  signature: string;
  amountMinor: number | null;
  currency: string | null;
  resolvedByEventId: number | null;
  /** Who resolved it, when (ISO; the team database's time on a team desk once known) and their note. */
  resolvedBy: string | null;
  resolvedAt: string | null;
  resolutionNote: string | null;
}

export interface AuditEvent {
  id: number;
  collectionId: number | null;
  merchantReference: string;
  internalReference: string | null;
  source: string;
  kind: string;
  status: string | null;
  receivedAt: string;
  signature: string;
  amountMinor: number | null;
  currency: string | null;
  /** The payload exactly as received (the callback body's text): evidence, so never parsed and re-serialised. */
  payload: string | null;
  note: string | null;
  actor: string | null;
}

/** One source's column in the side-by-side detail. */
export interface SourceColumn {
  source: 'intent' | 'initiate' | 'redirect' | 'callback' | 'import' | 'manual' | 'security';
  /** The latest status this source reported (any signature state: see `signature`). */
  status: string | null;
  signature: string | null;
  amountMinor: number | null;
  currency: string | null;
  receivedAt: string | null;
  events: number;
}

/** The resolution that stands (the latest in the team's order): who, when (ISO) and the note. */
export interface ResolutionShown {
  eventId: number;
  by: string | null;
  at: string;
  note: string | null;
}

export interface ExceptionDetail {
  collection: Record<string, unknown>;
  reconciliation: ExceptionRow | null;
  /** The resolution the reconciliation names, or null when there is none. */
  resolution: ResolutionShown | null;
  sources: SourceColumn[];
  events: AuditEvent[];
}

export interface MovementInterval {
  currency: string;
  fromPollId: number;
  toPollId: number;
  fromAt: string;
  toAt: string;
  openingActualMinor: number;
  closingActualMinor: number;
  changeMinor: number;
  /** Sum of total_credit of collections completed in the interval (less reversals). */
  creditedMinor: number;
  unexplainedMinor: number;
  /** Callback outcomes that moved the expected balance in this interval. */
  collections: number;
}

export interface MovementTotals {
  currency: string;
  changeMinor: number;
  creditedMinor: number;
  unexplainedMinor: number;
  intervals: number;
  unexplainedIntervals: number;
}

export interface MovementResult {
  intervals: MovementInterval[];
  totals: MovementTotals[];
  polls: number;
  /** Intervals with no change and no credit, left out of `intervals`. */
  quietIntervals: number;
  /** Completed callbacks whose total_credit could not be read (counted as 0). */
  unreadableCredits: number;
  truncated: boolean;
}
