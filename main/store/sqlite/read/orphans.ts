// Orphan callbacks: signed events for a reference this desk has no collection for. One definition, the
// view of migration 003 (reconciliation_orphans), read here for the queue, the summary and the resolve
// command's check, with who resolved each and when.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { CollectionEventRow } from '../ledger/collection-events.js';

/** A row of the reconciliation_orphans view. */
export interface OrphanRecord extends Pick<
  CollectionEventRow,
  | 'merchant_reference'
  | 'internal_reference'
  | 'source'
  | 'status'
  | 'received_at'
  | 'signature'
  | 'amount_minor'
  | 'currency'
> {
  event_id: number;
  resolved_by_event_id: number | null;
  /** The resolution's actor, its time (ms) and its note; null while open. */
  resolved_by: string | null;
  resolved_at: number | null;
  resolution_note: string | null;
}

/** The view's rows with their resolution's who, when and note. */
const ORPHANS = `SELECT o.*, r.actor AS resolved_by, r.received_at AS resolved_at, r.note AS resolution_note
  FROM reconciliation_orphans o LEFT JOIN collection_events r ON r.id = o.resolved_by_event_id`;

/** Newest first; only the open ones unless includeResolved; only one (resolved or not) with eventId. */
export function orphansPage(
  db: ReadDb,
  opts: {
    includeResolved?: boolean | undefined;
    eventId?: number | undefined;
    offset?: number | undefined;
    limit?: number | undefined;
  } = {},
): { rows: OrphanRecord[]; total: number } {
  if (opts.eventId !== undefined) {
    const one = orphanByEventId(db, opts.eventId);
    return { rows: one ? [one] : [], total: one ? 1 : 0 };
  }
  const where = opts.includeResolved ? '' : 'WHERE resolved_by_event_id IS NULL';
  const total = readStatement(db, `SELECT COUNT(*) FROM reconciliation_orphans ${where}`, 'pluck').get() as number;
  const rows = readStatement(
    db,
    `${ORPHANS} ${where.replace('resolved_by_event_id', 'o.resolved_by_event_id')} ORDER BY o.event_id DESC LIMIT ? OFFSET ?`,
  ).all(Math.min(Math.max(opts.limit ?? 100, 1), 1000), Math.max(opts.offset ?? 0, 0)) as OrphanRecord[];
  return { rows, total };
}

/** How many orphans there are and how many are still open. */
export function orphanCounts(db: ReadDb): { total: number; open: number } {
  return readStatement(
    db,
    'SELECT COUNT(*) AS total, COALESCE(SUM(resolved_by_event_id IS NULL), 0) AS open FROM reconciliation_orphans',
  ).get() as { total: number; open: number };
}

/** How many orphans are open (the queue's tab). */
export function openOrphanCount(db: ReadDb): number {
  return readStatement(
    db,
    'SELECT COUNT(*) FROM reconciliation_orphans WHERE resolved_by_event_id IS NULL',
    'pluck',
  ).get() as number;
}

/** One orphan by its event id, or undefined. */
export function orphanByEventId(db: ReadDb, eventId: number): OrphanRecord | undefined {
  return readStatement(db, `${ORPHANS} WHERE o.event_id = ?`).get(eventId) as OrphanRecord | undefined;
}
