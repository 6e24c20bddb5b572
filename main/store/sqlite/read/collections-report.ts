// The collections CSV report's queries (reports/writers.ts formats the rows, reports/export-worker.ts runs
// them on worker threads): every collection created in a time range with its reconciliation, in
// created_at order, as raw rows (statement.iterate) so a million rows stream without an object each.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { addRange, newTerms, whereOf, type Params } from './filters.js';

/** created_at range in ms: from inclusive, to exclusive. */
export interface CreatedRange {
  from?: number | undefined;
  to?: number | undefined;
}

function rangeWhere(p: CreatedRange): { where: string; params: Params } {
  const t = addRange(newTerms(), 'c.created_at', p);
  return { where: whereOf(t.where), params: t.params };
}

const FROM = 'FROM collections c LEFT JOIN reconciliation r ON r.collection_id = c.id';
const ORDER = 'ORDER BY c.created_at, c.id';

/**
 * The same rows and columns, unformatted: what the benchmark gives the sqlite3 command as a baseline.
 * (Integers stay ms and minor units there; the report formats them.)
 */
export function collectionsBaselineQuery(p: CreatedRange = {}): { sql: string; params: Params } {
  const w = rangeWhere(p);
  const sql = `SELECT c.merchant_reference, c.internal_reference, c.created_at, c.amount_minor, c.currency, c.status,
  r.initiate_status, r.redirect_status, r.callback_status, r.import_status, r.manual_status, r.outcome, r.kinds,
  r.is_exception, c.charge_customer, c.allow_final_status_change, c.description, c.customer_name, c.customer_email,
  c.operator, c.provider_code, c.card_brand, c.card_last4, c.status_changed_at, c.status_message, r.resolution_note,
  r.completed_at, c.payment_url, c.redirect_url, c.id ${FROM} ${w.where} ${ORDER}`;
  return { sql, params: w.params };
}

/**
 * The report's query, one value per column. Columns whose values come from a closed vocabulary
 * (statuses checked by the schema or set only to final statuses by reconciliation, outcome kinds,
 * booleans) are joined into one cell run by SQLite; free text, times and amounts are formatted (and
 * guarded) in JS.
 */
export function collectionsQuery(p: CreatedRange): { sql: string; params: Params } {
  const w = rangeWhere(p);
  const opt = (x: string) => `coalesce(${x}, '')`;
  const bool = (x: string) => `(CASE WHEN ${x} IS NULL THEN '' WHEN ${x} THEN 'true' ELSE 'false' END)`;
  const vocab = [
    'c.status',
    opt('r.initiate_status'),
    opt('r.redirect_status'),
    opt('r.callback_status'),
    opt('r.import_status'),
    opt('r.manual_status'),
    opt('r.outcome'),
    // '["a","b"]' -> 'a;b'
    `replace(replace(replace(${opt('r.kinds')}, '["', ''), '"]', ''), '","', ';')`,
    bool('r.is_exception'),
    bool('c.charge_customer'),
    bool('c.allow_final_status_change'),
  ].join(" || ',' || ");
  const sql = `SELECT c.merchant_reference, c.internal_reference, c.created_at, c.amount_minor, c.currency, ${vocab} AS vocab,
  c.description, c.customer_name, c.customer_email, c.operator, c.provider_code, c.card_brand, c.card_last4,
  c.status_changed_at, c.status_message, r.resolution_note, r.completed_at, c.payment_url, c.redirect_url, c.id
  ${FROM} ${w.where} ${ORDER}`;
  return { sql, params: w.params };
}

/** A row of collectionsQuery: one value per column (the closed vocabulary joined in index 5). */
export type ReportRow = [
  string,
  string | null,
  number,
  number,
  string,
  string,
  string,
  string | null,
  string | null,
  string,
  string | null,
  string | null,
  string | null,
  number,
  string | null,
  string | null,
  number | null,
  string | null,
  string,
  number,
];

/**
 * Runs of neighbouring text cells, joined by SQLite (concat_ws of values that are never NULL), so that a
 * row reaches JS as 14 values instead of 20 (each text value handed over costs a V8 string, ~85 ns; the
 * vocabulary cells joined with || cost SQLite an allocation per part). The writer writes a run as it is
 * when none of its cells needs a guard or quotes; otherwise it reads that row again by id
 * (reportRowById), one value per column.
 */
const RUNS = {
  refs: ['c.merchant_reference', 'c.internal_reference'],
  // currency and the closed-vocabulary cells (free text likely to hold a comma or a quote: description,
  // customer_name, status_message, resolution_note, comes one value per column and goes through textCell)
  middle: [
    'c.currency',
    'c.status',
    'r.initiate_status',
    'r.redirect_status',
    'r.callback_status',
    'r.import_status',
    'r.manual_status',
    'r.outcome',
    // '["a","b"]' -> 'a;b'
    `replace(replace(replace(r.kinds, '["', ''), '"]', ''), '","', ';')`,
    `(CASE WHEN r.is_exception IS NULL THEN '' WHEN r.is_exception THEN 'true' ELSE 'false' END)`,
    `(CASE WHEN c.charge_customer IS NULL THEN '' WHEN c.charge_customer THEN 'true' ELSE 'false' END)`,
    `(CASE WHEN c.allow_final_status_change IS NULL THEN '' WHEN c.allow_final_status_change THEN 'true' ELSE 'false' END)`,
  ],
  contact: ['c.customer_email', 'c.operator', 'c.provider_code', 'c.card_brand', 'c.card_last4'],
  urls: ['c.payment_url', 'c.redirect_url', 'c.id'],
} as const;

/** How many cells each run of a RunsRow holds (refs: index 0, middle: 4, contact: 7, urls: 12). */
export const RUN_CELLS = {
  refs: RUNS.refs.length,
  middle: RUNS.middle.length,
  contact: RUNS.contact.length,
  urls: RUNS.urls.length,
} as const;

/** A row of the runs query: runs joined by commas, other cells one value each; the id last. */
export type RunsRow = [
  string,
  number,
  number,
  string,
  string,
  string,
  string | null,
  string,
  number,
  string | null,
  string | null,
  number | null,
  string,
  number,
];

function collectionsRunsQuery(p: CreatedRange): { sql: string; params: Params } {
  const w = rangeWhere(p);
  const run = (cells: readonly string[]) => `concat_ws(',', ${cells.map((x) => `coalesce(${x}, '')`).join(', ')})`;
  const sql = `SELECT ${run(RUNS.refs)}, c.created_at, c.amount_minor, c.currency, ${run(RUNS.middle)}, c.description, c.customer_name,
  ${run(RUNS.contact)}, c.status_changed_at, c.status_message, r.resolution_note, r.completed_at, ${run(RUNS.urls)}, c.id
  ${FROM} ${w.where} ${ORDER}`;
  return { sql, params: w.params };
}

/** The report's rows in created_at order, runs joined (RunsRow). */
export function reportRuns(db: ReadDb, p: CreatedRange): IterableIterator<RunsRow> {
  const q = collectionsRunsQuery(p);
  return readStatement(db, q.sql, 'raw').iterate(q.params) as IterableIterator<RunsRow>;
}

/** Reads one report row by collection id, one value per column (ReportRow). */
export function reportRowById(db: ReadDb): (id: number) => ReportRow {
  const one = collectionsQuery({});
  const byId = readStatement(db, one.sql.replace(ORDER, '').replace(FROM, `${FROM} WHERE c.id = ?`), 'raw');
  return (id) => byId.get(id) as ReportRow;
}

/** How many rows the report of `p` has. */
export function reportRowCount(db: ReadDb, p: CreatedRange): number {
  const w = rangeWhere(p);
  return readStatement(db, `SELECT COUNT(*) FROM collections c ${w.where}`, 'pluck').get(w.params) as number;
}

/**
 * The created_at of the row `offset` rows into [from, to) in created_at order (a split point between
 * two export segments), or undefined past the end.
 */
export function createdAtAtOffset(db: ReadDb, from: number, to: number, offset: number): number | undefined {
  return readStatement(
    db,
    `SELECT created_at FROM collections WHERE created_at >= ? AND created_at < ? ORDER BY created_at LIMIT 1 OFFSET ?`,
    'pluck',
  ).get(from, to, offset) as number | undefined;
}
