// The collections CSV report's queries (reports/collection-rows.ts formats the rows, reports/export-worker.ts runs
// them on worker threads): every collection created in a time range with its reconciliation, in
// created_at order, as raw rows (statement.iterate) so a million rows stream without an object each.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { intValue } from '../../columns.js';
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
function collectionsQuery(p: CreatedRange): { sql: string; params: Params } {
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
 * The report's row as ONE text per row, put together by SQLite (concat_ws, in C), so that a row reaches
 * JS as one value instead of one per column (each value handed over costs V8 an object; the cells
 * joined cost SQLite next to nothing). Its layout, in the report's column order:
 *
 *   refs US created US amount US middle RS description RS customer_name RS contact US changed US
 *   status_message RS resolution_note US completed US urls
 *
 * (US is char(31), RS char(30)), where each run (refs, middle, contact, urls) is its cells joined by
 * commas, NULL written as '' (LINE_RUNS), the three times and the amount are the integers as stored,
 * completed is '' for NULL and 'x' for a value that is not an integer, and the free-text cells are as
 * stored ('' for NULL). urls ends with the collection's id. A writer formats the times and the amount
 * and checks every other cell (reports/collection-rows.ts); a row whose cells hold US, RS, or anything it does
 * not take as it is, it reads again by id (reportRowById), one value per column. (A BLOB in a text
 * column is its bytes as text here, as concat_ws makes it: the report wrote it so in every column but
 * the four free-text ones, where it stopped with an error.)
 */
export const LINE_RUNS = {
  refs: ['c.merchant_reference', 'c.internal_reference'],
  // currency, then the closed-vocabulary cells (statuses checked by the schema or set only to final
  // statuses by reconciliation, outcome kinds, booleans)
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

function collectionsLineQuery(p: CreatedRange): { sql: string; params: Params } {
  const w = rangeWhere(p);
  const run = (cells: readonly string[]) => `concat_ws(',', ${cells.map((x) => `coalesce(${x}, '')`).join(', ')})`;
  const free = (x: string) => `coalesce(${x}, '')`;
  const sep = (x: string, y: string) => `concat_ws(char(30), ${x}, ${y})`;
  const middle = `concat_ws(char(30), ${run(LINE_RUNS.middle)}, ${free('c.description')}, ${free('c.customer_name')}, ${run(LINE_RUNS.contact)})`;
  const completed = `(CASE WHEN typeof(r.completed_at) = 'integer' THEN r.completed_at WHEN r.completed_at IS NULL THEN '' ELSE 'x' END)`;
  const sql = `SELECT concat_ws(char(31), ${run(LINE_RUNS.refs)}, c.created_at, c.amount_minor, ${middle}, c.status_changed_at,
  ${sep(free('c.status_message'), free('r.resolution_note'))}, ${completed}, ${run(LINE_RUNS.urls)})
  ${FROM} ${w.where} ${ORDER}`;
  return { sql, params: w.params };
}

/** The report's rows in created_at order, one text each (the layout above). */
export function reportLines(db: ReadDb, p: CreatedRange): IterableIterator<string> {
  const q = collectionsLineQuery(p);
  return readStatement(db, q.sql, 'pluck').iterate(q.params) as IterableIterator<string>;
}

/** The report's rows in created_at order, one value per column (ReportRow): the .xlsx report's typed cells. */
export function reportRows(db: ReadDb, p: CreatedRange): IterableIterator<ReportRow> {
  const q = collectionsQuery(p);
  return readStatement(db, q.sql, 'raw').iterate(q.params) as IterableIterator<ReportRow>;
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
  return intValue(
    readStatement(db, `SELECT COUNT(*) FROM collections c ${w.where}`, 'pluck').get(w.params),
    'count(*)',
  );
}

/**
 * Where the next part of an export after `from` ends: the created_at of the row `rows` rows after the
 * first one at or after `from` (none: from the start) and before `to`, or, when that row's time is
 * `from` itself (more ties than `rows`), the next greater time. Undefined when fewer rows are left
 * (the part runs to `to`). Parts are [from, end): each created_at is in exactly one of them.
 */
export function partEnd(db: ReadDb, from: number | undefined, to: number | undefined, rows: number): unknown {
  const t = newTerms();
  if (from !== undefined) t.where.push('created_at >= @from');
  if (to !== undefined) t.where.push('created_at < @to');
  const params = { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), rows };
  const at = readStatement(
    db,
    `SELECT created_at FROM collections ${whereOf(t.where)} ORDER BY created_at LIMIT 1 OFFSET @rows`,
    'pluck',
  ).get(params);
  if (at === undefined || at !== from) return at;
  return (
    readStatement(
      db,
      `SELECT min(created_at) FROM collections WHERE created_at > @from${to !== undefined ? ' AND created_at < @to' : ''}`,
      'pluck',
    ).get({ from, ...(to !== undefined ? { to } : {}) }) ?? undefined
  );
}
