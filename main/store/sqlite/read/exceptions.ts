// The exceptions queue: a filtered, sorted page of reconciliation rows with their collections, how many
// match, and the open counts by kind shown on its tabs. Rows come back as stored; reconcile/exceptions.ts
// turns them into the screen's JSON.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { EXCEPTION_KINDS } from '../reconcile/kinds.shared.js';
import { addCurrency, addPrefix, addRange, newTerms, NOT_MATCHED } from './filters.js';
import type { CollectionRecord } from './collections-page.js';
import { isExceptionOf, reconciliationShownOf, type ReconciliationShown } from '../reconcile/reconciliation-rows.js';
import { int, intValue, num, rowMapper, text, textOrNull } from '../../columns.js';

export interface ExceptionQuery {
  /** An exception kind; 'orphan_callback' is listed by the orphans read model. */
  kind?: string | undefined;
  currency?: string | undefined;
  /** created_at range, ms (inclusive from, exclusive to). */
  from?: number | undefined;
  to?: number | undefined;
  /** Prefix of the merchant or internal reference. */
  text?: string | undefined;
  /** Also list exceptions that a person has resolved. */
  includeResolved?: boolean | undefined;
  sort?: 'newest' | 'oldest' | 'amount' | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

/** A reconciliation row joined with its collection. */
export interface ReconciliationRecord
  extends
    Pick<
      CollectionRecord,
      'id' | 'merchant_reference' | 'internal_reference' | 'created_at' | 'amount_minor' | 'currency' | 'customer_name'
    >,
    ReconciliationShown {
  status: string;
  is_exception: number;
}

/** A row of RECONCILIATION_COLUMNS. */
export const reconciliationRecordOf = rowMapper<ReconciliationRecord>((r) => ({
  id: int(r, 'id'),
  merchant_reference: text(r, 'merchant_reference'),
  internal_reference: textOrNull(r, 'internal_reference'),
  created_at: num(r, 'created_at'),
  amount_minor: int(r, 'amount_minor'),
  currency: text(r, 'currency'),
  status: text(r, 'status'),
  customer_name: textOrNull(r, 'customer_name'),
  ...reconciliationShownOf(r),
  is_exception: isExceptionOf(r),
}));

const kindCountOf = rowMapper((r) => ({ kind: text(r, 'kind'), n: int(r, 'n') }));

export const RECONCILIATION_COLUMNS = `c.id, c.merchant_reference, c.internal_reference, c.created_at, c.amount_minor, c.currency, c.status,
  c.customer_name, r.outcome, r.kinds, r.open_kinds, r.is_exception, r.resolved_by_event_id, r.resolution_note,
  r.initiate_status, r.redirect_status, r.callback_status, r.import_status, r.manual_status, r.computed_at`;

/** Each open kind with how many open exceptions have it (a collection counts under each of its kinds). */
export function openCountsByKind(db: ReadDb): { kind: string; n: number }[] {
  return readStatement(
    db,
    `SELECT j.value AS kind, COUNT(*) AS n FROM reconciliation r, json_each(r.open_kinds) j
        WHERE r.is_exception = 1 GROUP BY j.value`,
  )
    .all()
    .map(kindCountOf);
}

/**
 * A page of the queue: with includeResolved, the rows whose outcome is an exception kind, open or
 * resolved; else the open ones.
 */
export function exceptionsPage(db: ReadDb, q: ExceptionQuery): { rows: ReconciliationRecord[]; total: number } {
  const t = newTerms();
  if (q.includeResolved) {
    t.where.push(`r.${NOT_MATCHED}`, `r.outcome IN (${EXCEPTION_KINDS.map((_, i) => `@k${i}`).join(',')})`);
    EXCEPTION_KINDS.forEach((k, i) => (t.params[`k${i}`] = k));
  } else {
    t.where.push('r.is_exception = 1');
  }
  if (q.kind !== undefined) {
    t.where.push(
      `EXISTS (SELECT 1 FROM json_each(${q.includeResolved ? 'r.kinds' : 'r.open_kinds'}) j WHERE j.value = @kind)`,
    );
    t.params.kind = q.kind;
  }
  addCurrency(t, 'c.currency', q.currency);
  addRange(t, 'c.created_at', q);
  addPrefix(t, ['lower(c.merchant_reference)', 'lower(c.internal_reference)'], q.text);
  const order =
    q.sort === 'oldest'
      ? 'c.created_at ASC, c.id ASC'
      : q.sort === 'amount'
        ? 'c.amount_minor DESC, c.id DESC'
        : 'c.created_at DESC, c.id DESC';
  const from = `FROM reconciliation r JOIN collections c ON c.id = r.collection_id WHERE ${t.where.join(' AND ')}`;
  const total = intValue(readStatement(db, `SELECT COUNT(*) ${from}`, 'pluck').get(t.params), 'count(*)');
  const limit = Math.min(Math.max(q.limit ?? 100, 1), 1000);
  const rows = readStatement(
    db,
    `SELECT ${RECONCILIATION_COLUMNS} ${from} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
  )
    .all({
      ...t.params,
      limit,
      offset: Math.max(q.offset ?? 0, 0),
    })
    .map(reconciliationRecordOf);
  return { rows, total };
}
