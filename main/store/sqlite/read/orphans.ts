// Orphan callbacks: signed events for a reference this desk has no collection for. One definition, the
// view of migration 003 (reconciliation_orphans), read here for the queue, the summary and the resolve
// command's check, with who resolved each and when.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { CollectionEventRow } from '../ledger/collection-events.js';
import { int, intOrNull, intValue, maybe, num, numOrNull, rowMapper, text, textOrNull } from '../../columns.js';

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

const orphanOf = rowMapper<OrphanRecord>((r) => ({
  event_id: int(r, 'event_id'),
  merchant_reference: text(r, 'merchant_reference'),
  internal_reference: textOrNull(r, 'internal_reference'),
  source: text(r, 'source'),
  status: textOrNull(r, 'status'),
  received_at: num(r, 'received_at'),
  signature: text(r, 'signature'),
  amount_minor: intOrNull(r, 'amount_minor'),
  currency: textOrNull(r, 'currency'),
  resolved_by_event_id: intOrNull(r, 'resolved_by_event_id'),
  resolved_by: textOrNull(r, 'resolved_by'),
  resolved_at: numOrNull(r, 'resolved_at'),
  resolution_note: textOrNull(r, 'resolution_note'),
}));
const orphanCountsOf = rowMapper((r) => ({ total: int(r, 'total'), open: int(r, 'open') }));

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
  const total = intValue(
    readStatement(db, `SELECT COUNT(*) FROM reconciliation_orphans ${where}`, 'pluck').get(),
    'count(*)',
  );
  const rows = readStatement(
    db,
    `${ORPHANS} ${where.replace('resolved_by_event_id', 'o.resolved_by_event_id')} ORDER BY o.event_id DESC LIMIT ? OFFSET ?`,
  )
    .all(Math.min(Math.max(opts.limit ?? 100, 1), 1000), Math.max(opts.offset ?? 0, 0))
    .map(orphanOf);
  return { rows, total };
}

/** How many orphans there are and how many are still open. */
export function orphanCounts(db: ReadDb): { total: number; open: number } {
  return orphanCountsOf(
    readStatement(
      db,
      'SELECT COUNT(*) AS total, COALESCE(SUM(resolved_by_event_id IS NULL), 0) AS open FROM reconciliation_orphans',
    ).get(),
  );
}

/** How many orphans are open (the queue's tab). */
export function openOrphanCount(db: ReadDb): number {
  return intValue(
    readStatement(db, 'SELECT COUNT(*) FROM reconciliation_orphans WHERE resolved_by_event_id IS NULL', 'pluck').get(),
    'count(*)',
  );
}

/** One orphan by its event id, or undefined. */
export function orphanByEventId(db: ReadDb, eventId: number): OrphanRecord | undefined {
  return maybe(readStatement(db, `${ORPHANS} WHERE o.event_id = ?`).get(eventId), orphanOf);
}
