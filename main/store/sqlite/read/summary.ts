// The reconciliation summary's counts, from what the reconciliation table holds (kept current as events
// are stored): pure reads, each from an index (migrations 010, 011).
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { EXCEPTION_KINDS } from '../reconcile/kinds.shared.js';
import { NOT_MATCHED } from './filters.js';
import { int, intValue, rowMapper, text } from '../../columns.js';

const outcomeCountOf = rowMapper((r) => ({ outcome: text(r, 'outcome'), n: int(r, 'n') }));

export interface ReconciliationCounts {
  /** Every reconciled collection. */
  collections: number;
  /** Collections by outcome, every outcome but 'matched' (those are the rest). */
  notMatched: { outcome: string; n: number }[];
  /** Open exceptions (a collection counts once). */
  openExceptions: number;
  /** Exceptions (by outcome) that a person has resolved. */
  resolved: number;
}

export function reconciliationCounts(db: ReadDb): ReconciliationCounts {
  // Every outcome but 'matched' from its partial index (migration 011); matched are the rest.
  const collections = intValue(readStatement(db, 'SELECT COUNT(*) FROM reconciliation', 'pluck').get(), 'count(*)');
  const notMatched = readStatement(
    db,
    `SELECT outcome, COUNT(*) AS n FROM reconciliation WHERE ${NOT_MATCHED} GROUP BY outcome`,
  )
    .all()
    .map(outcomeCountOf);
  const openExceptions = intValue(
    readStatement(db, 'SELECT COUNT(*) FROM reconciliation WHERE is_exception = 1', 'pluck').get(),
    'count(*)',
  );
  const resolved = intValue(
    readStatement(
      db,
      `SELECT COUNT(*) FROM reconciliation WHERE ${NOT_MATCHED} AND is_exception = 0 AND resolved_by_event_id IS NOT NULL
         AND outcome IN (${EXCEPTION_KINDS.map(() => '?').join(',')})`,
      'pluck',
    ).get(...EXCEPTION_KINDS),
    'count(*)',
  );
  return { collections, notMatched, openExceptions, resolved };
}
