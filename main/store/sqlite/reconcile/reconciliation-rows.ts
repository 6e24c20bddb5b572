// The reconciliation table's rows as the incremental path writes them, one collection at a time (each
// appended event, each collection a group left to the rules), and the collections the sweep is due to
// re-classify (what no event drives).
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { int, intOrNull, ints, num, text, textOrNull, type RawRow } from '../../columns.js';

/** One row of the reconciliation table (migration 003), as stored: kinds and open_kinds are JSON arrays. */
export interface ReconciliationRow {
  collection_id: number;
  outcome: string;
  kinds: string;
  open_kinds: string;
  is_exception: 0 | 1;
  last_event_id: number | null;
  computed_at: number;
  stale_at: number | null;
  resolved_by_event_id: number | null;
  resolution_note: string | null;
  initiate_status: string | null;
  redirect_status: string | null;
  callback_status: string | null;
  import_status: string | null;
  manual_status: string | null;
  completed_at: number | null;
}

/** What the screens read of a reconciliation row: its outcome, kinds, resolution and each source's status. */
export type ReconciliationShown = Omit<
  ReconciliationRow,
  'collection_id' | 'is_exception' | 'last_event_id' | 'stale_at' | 'completed_at'
>;

/** A reconciliation row's shown columns (the read models' mappers build on it). */
export function reconciliationShownOf(r: RawRow): ReconciliationShown {
  return {
    outcome: text(r, 'outcome'),
    kinds: text(r, 'kinds'),
    open_kinds: text(r, 'open_kinds'),
    computed_at: num(r, 'computed_at'),
    resolved_by_event_id: intOrNull(r, 'resolved_by_event_id'),
    resolution_note: textOrNull(r, 'resolution_note'),
    initiate_status: textOrNull(r, 'initiate_status'),
    redirect_status: textOrNull(r, 'redirect_status'),
    callback_status: textOrNull(r, 'callback_status'),
    import_status: textOrNull(r, 'import_status'),
    manual_status: textOrNull(r, 'manual_status'),
  };
}
/** is_exception as stored (0 or 1). */
export function isExceptionOf(r: RawRow): number {
  return int(r, 'is_exception');
}

// An upsert updates the row in place (REPLACE would delete and re-insert it, touching every index).
const UPSERT = `INSERT INTO reconciliation (collection_id, outcome, kinds, open_kinds, is_exception, last_event_id,
           computed_at, stale_at, resolved_by_event_id, resolution_note, initiate_status, redirect_status,
           callback_status, import_status, manual_status, completed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (collection_id) DO UPDATE SET outcome = excluded.outcome, kinds = excluded.kinds,
           open_kinds = excluded.open_kinds, is_exception = excluded.is_exception, last_event_id = excluded.last_event_id,
           computed_at = excluded.computed_at, stale_at = excluded.stale_at, resolved_by_event_id = excluded.resolved_by_event_id,
           resolution_note = excluded.resolution_note, initiate_status = excluded.initiate_status,
           redirect_status = excluded.redirect_status, callback_status = excluded.callback_status,
           import_status = excluded.import_status, manual_status = excluded.manual_status, completed_at = excluded.completed_at`;

/** Stores one collection's row, replacing the one it had. */
export function upsertReconciliation(db: WriteDb, r: ReconciliationRow): void {
  statement(db, UPSERT).run(
    r.collection_id,
    r.outcome,
    r.kinds,
    r.open_kinds,
    r.is_exception,
    r.last_event_id,
    r.computed_at,
    r.stale_at,
    r.resolved_by_event_id,
    r.resolution_note,
    r.initiate_status,
    r.redirect_status,
    r.callback_status,
    r.import_status,
    r.manual_status,
    r.completed_at,
  );
}

/** Pending collections whose stale time has passed by `now` (the reconciliation_stale index). */
export function staleDueIds(db: ReadDb, now: number): number[] {
  return ints(
    readStatement(
      db,
      'SELECT collection_id FROM reconciliation WHERE stale_at IS NOT NULL AND stale_at <= ?',
      'pluck',
    ).all(now),
    'collection_id',
  );
}

/**
 * Collections with no reconciliation row yet, above the highest reconciled id (rows written outside
 * the ledger, e.g. before the incremental path existed).
 */
export function unreconciledIds(db: ReadDb): number[] {
  return ints(
    readStatement(
      db,
      'SELECT id FROM collections WHERE id > (SELECT COALESCE(MAX(collection_id), 0) FROM reconciliation)',
      'pluck',
    ).all(),
    'id',
  );
}
