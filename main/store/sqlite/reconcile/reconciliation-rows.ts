// The reconciliation table's rows as the incremental path writes them, one collection at a time (each
// appended event, each collection a group left to the rules), and the collections the sweep is due to
// re-classify (what no event drives).
import type { Db } from '../connection.js';
import { statement } from '../statements.js';

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
export function upsertReconciliation(db: Db, r: ReconciliationRow): void {
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
export function staleDueIds(db: Db, now: number): number[] {
  return statement(
    db,
    'SELECT collection_id FROM reconciliation WHERE stale_at IS NOT NULL AND stale_at <= ?',
    'pluck',
  ).all(now) as number[];
}

/**
 * Collections with no reconciliation row yet, above the highest reconciled id (rows written outside
 * the ledger, e.g. before the incremental path existed).
 */
export function unreconciledIds(db: Db): number[] {
  return statement(
    db,
    'SELECT id FROM collections WHERE id > (SELECT COALESCE(MAX(collection_id), 0) FROM reconciliation)',
    'pluck',
  ).all() as number[];
}
