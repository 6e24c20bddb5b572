// The collections page: a filtered, sorted page of collections and how many match (fast on a year of
// history: every filter and sort rides an index, see migrations 001/002/005). Rows come back as stored;
// collections/query.ts turns them into what the screen shows.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { int, intValue, num, rowMapper, text, textOrNull } from '../../columns.js';
import { addCurrency, addRange, newTerms, prefixBounds, prefixTerm, whereOf, type Params } from './filters.js';

export type SortColumn = 'created_at' | 'amount' | 'currency' | 'status' | 'reference' | 'customer';

export interface ListQuery {
  status?: string | string[] | undefined;
  currency?: string | undefined;
  /** created_at >= from (ms) */
  from?: number | undefined;
  /** created_at < to (ms) */
  to?: number | undefined;
  /** Prefix of the merchant reference, internal reference or customer name (case-insensitive). */
  text?: string | undefined;
  flagged?: boolean | undefined;
  sort?: { column: SortColumn | undefined; dir: 'asc' | 'desc' };
  offset?: number | undefined;
  limit?: number | undefined;
}

/** A collections row as stored (the page's and the detail's columns). */
export type CollectionRecord = {
  id: number;
  merchant_reference: string;
  internal_reference: string | null;
  created_at: number;
  amount_minor: number;
  currency: string;
  description: string;
  customer_name: string | null;
  customer_email: string | null;
  charge_customer: number;
  allow_final_status_change: number;
  operator: string;
  provider_code: string | null;
  card_brand: string | null;
  card_last4: string | null;
  status: string;
  status_changed_at: number;
  status_message: string | null;
  payment_url: string | null;
  redirect_status: string | null;
  redirect_signature: string | null;
  callback_status: string | null;
  flags: number;
  final_changes: number;
};

/** A row of COLLECTION_COLUMNS. */
export const collectionRecordOf = rowMapper<CollectionRecord>((r) => ({
  id: int(r, 'id'),
  merchant_reference: text(r, 'merchant_reference'),
  internal_reference: textOrNull(r, 'internal_reference'),
  created_at: num(r, 'created_at'),
  amount_minor: int(r, 'amount_minor'),
  currency: text(r, 'currency'),
  description: text(r, 'description'),
  customer_name: textOrNull(r, 'customer_name'),
  customer_email: textOrNull(r, 'customer_email'),
  charge_customer: int(r, 'charge_customer'),
  allow_final_status_change: int(r, 'allow_final_status_change'),
  operator: text(r, 'operator'),
  provider_code: textOrNull(r, 'provider_code'),
  card_brand: textOrNull(r, 'card_brand'),
  card_last4: textOrNull(r, 'card_last4'),
  status: text(r, 'status'),
  status_changed_at: num(r, 'status_changed_at'),
  status_message: textOrNull(r, 'status_message'),
  payment_url: textOrNull(r, 'payment_url'),
  redirect_status: textOrNull(r, 'redirect_status'),
  redirect_signature: textOrNull(r, 'redirect_signature'),
  callback_status: textOrNull(r, 'callback_status'),
  flags: int(r, 'flags'),
  final_changes: int(r, 'final_changes'),
}));

export const COLLECTION_COLUMNS = `id, merchant_reference, internal_reference, created_at, amount_minor, currency, description, customer_name,
  customer_email, charge_customer, allow_final_status_change, operator, provider_code, card_brand, card_last4, status,
  status_changed_at, status_message, payment_url, redirect_status, redirect_signature, callback_status, flags, final_changes`;

// The ORDER BY terms of each sort (then id, for a stable order). Amounts of different currencies are
// not comparable (100 UGX is not more than 1 USD), so an amount sort groups by currency first: with a
// currency filter that is the amount order, without one it is currency then amount, on the same
// (currency, amount_minor) index.
const ORDER: Record<SortColumn, readonly string[]> = {
  created_at: ['created_at'],
  amount: ['currency', 'amount_minor'],
  currency: ['currency'],
  status: ['status'],
  reference: ['lower(merchant_reference)'],
  customer: ['lower(customer_name)'],
};

// Totals per connection and filter: counting a status over a year is O(rows), so a total is counted
// once per filter and reused while nothing has been written (paging, re-sorting). Any write on this
// connection (total_changes) or a commit by another one (data_version) counts again.
const totalCache = new WeakMap<ReadDb, Map<string, { version: string; total: number }>>();
function dataVersion(db: ReadDb): string {
  const changes = intValue(readStatement(db, 'SELECT total_changes()', 'pluck').get(), 'total_changes()');
  const other = intValue(readStatement(db, 'PRAGMA data_version', 'pluck').get(), 'data_version');
  return `${changes}:${other}`;
}

/** What a text filter matches a prefix of, each on its own lower(...) index (migrations 002, 005). */
const TEXT_COLUMNS = ['lower(merchant_reference)', 'lower(internal_reference)', 'lower(customer_name)'] as const;

/**
 * The day of a collection's created_at, as migration 021's indexes hold it (the same text, or SQLite
 * would not use them): an integer time divided by a day's milliseconds (SQLite's integer division,
 * monotone in created_at), NULL for any other value.
 */
const DAY_OF = `(CASE WHEN typeof(created_at) = 'integer' THEN created_at / 86400000 END)`;

/** The text columns with an index keyed by (day, the column, created_at) (migration 021). */
const DAY_INDEXES: Partial<Record<(typeof TEXT_COLUMNS)[number], string>> = {
  'lower(merchant_reference)': 'collections_day_reference',
  'lower(customer_name)': 'collections_day_customer',
};

/**
 * The days a page sorted by time walks, first to last of the stored times (and within the filter's
 * range): migration 021's indexes are read one day at a time, so that a text arm stops at the day
 * where it has its rows. Null when a time is not a number (then the arm keeps the bound plan).
 */
function dayRange(db: ReadDb, q: ListQuery): { dlo: number; dhi: number } | null {
  // Each an index's first or last entry (collections_created). A REAL time's day has a fraction: the
  // range is rounded outwards, and an empty day costs one seek.
  const first = readStatement(db, 'SELECT min(created_at) / 86400000 FROM collections', 'pluck').get();
  const last = readStatement(db, 'SELECT max(created_at) / 86400000 FROM collections', 'pluck').get();
  if (typeof first !== 'number' || typeof last !== 'number') return null;
  let dlo = Math.floor(first);
  let dhi = Math.ceil(last);
  // The filter's own range, a day wider on each side (created_at is tested again as it is).
  if (q.from !== undefined) dlo = Math.max(dlo, Math.floor(q.from / 86_400_000) - 1);
  if (q.to !== undefined) dhi = Math.min(dhi, Math.ceil(q.to / 86_400_000) + 1);
  if (!Number.isSafeInteger(dlo) || !Number.isSafeInteger(dhi)) return null;
  return { dlo, dhi };
}

interface Arms {
  base: string[];
  arms: string[][];
  excl: string[];
  params: Params;
  signature: string;
}

/** The WHERE of a list query, split into arms (alternatives) that each ride an index in sort order. */
function filterArms(q: ListQuery, col: string, walkSortIndex = false): Arms {
  // Walking the sort index: a unary "+" keeps a term from choosing the index (it is only tested).
  const p = (column: string, keep = false) => (walkSortIndex && !keep ? `+${column}` : column);
  const statuses = [...new Set(q.status === undefined ? [] : Array.isArray(q.status) ? q.status : [q.status])].sort();
  const t = newTerms();
  addCurrency(t, p('currency', col === 'amount_minor' || col === 'lower(customer_name)'), q.currency);
  addRange(t, p('created_at'), q);
  if (q.flagged) t.where.push(`${p('flags')} <> 0`);
  const { where: base, params } = t;
  statuses.forEach((st, i) => (params[`s${i}`] = st));
  // Sorted by time, one arm per status: "status = ?" on (status[, currency], created_at) keeps the index
  // order that "status IN (...)" would lose. Other sorts walk their own index and test the status.
  const inList = `${p('status')} IN (${statuses.map((_, i) => `@s${i}`).join(', ')})`;
  const statusArms =
    statuses.length === 0
      ? [null]
      : statuses.length > 1 && col === 'created_at'
        ? statuses.map((_, i) => `status = @s${i}`)
        : [inList];
  const bounds = prefixBounds(q.text);
  // Prefix ranges on lower(...) indexes (LIKE '%x%' would scan a million rows).
  const textArms = bounds ? TEXT_COLUMNS.map(prefixTerm) : [null];
  if (bounds) Object.assign(params, bounds);
  const arms: string[][] = [];
  for (const sa of statusArms) for (const ta of textArms) arms.push([sa, ta].filter((x): x is string => x !== null));
  const signature = JSON.stringify([
    statuses,
    params.currency ?? null,
    q.from ?? null,
    q.to ?? null,
    !!q.flagged,
    bounds?.tlo ?? null,
  ]);
  return { base, arms, excl: bounds ? (textArms as string[]) : [], params, signature };
}

/** Counts rows matching the filter; text arms overlap, so each counts only rows the earlier ones did not. */
function countCollections(db: ReadDb, f: Arms): number {
  const cache = totalCache.get(db) ?? new Map<string, { version: string; total: number }>();
  totalCache.set(db, cache);
  const version = dataVersion(db);
  const hit = cache.get(f.signature);
  if (hit && hit.version === version) return hit.total;
  let total = 0;
  const textCount = f.excl.length;
  f.arms.forEach((arm, i) => {
    const k = textCount ? i % textCount : 0;
    // coalesce: a NULL column is "not matched by the earlier arm", not "unknown".
    const notEarlier = f.excl.slice(0, k).map((c) => `NOT coalesce(${c}, 0)`);
    total += intValue(
      readStatement(db, `SELECT count(*) FROM collections ${whereOf([...f.base, ...arm, ...notEarlier])}`, 'pluck').get(
        f.params,
      ),
      'count(*)',
    );
  });
  if (cache.size >= 64) cache.delete(cache.keys().next().value!);
  cache.set(f.signature, { version, total });
  return total;
}

/**
 * Above this many matching rows, a page sorted by anything but time walks the sort index and tests the
 * filters, instead of letting a filter's index find every match to sort them (the planner cannot tell
 * without statistics, and the app's database is not ANALYZEd). Exported for tests.
 */
export const PAGE_TUNING = { sortIndexAbove: 20_000, semiJoinAbove: 2_000 };

/** One page of collections as stored, and how many match the filter. */
export function collectionsPage(db: ReadDb, q: ListQuery = {}): { rows: CollectionRecord[]; total: number } {
  const terms = q.sort?.column && ORDER[q.sort.column] ? ORDER[q.sort.column] : ORDER.created_at;
  // The column the sort is "about" (amount_minor for an amount sort) decides the filters' plan.
  const col = terms[terms.length - 1]!;
  const counted = filterArms(q, col);
  const total = countCollections(db, counted);
  const walk = total > PAGE_TUNING.sortIndexAbove && col !== 'created_at' && !q.text?.trim();
  const f = walk ? filterArms(q, col, true) : counted;
  const dir = q.sort?.dir === 'asc' ? 'ASC' : 'DESC';
  const limit = Math.max(1, Math.min(1000, Math.floor(q.limit ?? 100)));
  const offset = Math.max(0, Math.floor(q.offset ?? 0));
  const order = `ORDER BY ${terms.map((t) => `${t} ${dir}`).join(', ')}, id ${dir}`;
  // The offset is a parameter: the planner reads only LIMIT's value (SQLite's estimate of the rows a
  // query returns), so every page of a filter shares one statement in the connection's cache instead of
  // one per offset (a scroll through a year would keep thousands, ~30 kB each). An arm's own LIMIT
  // (offset + limit, at most 20,000) stays a literal: it does steer the arm's plan.
  let sql: string;
  const statuses = q.status === undefined ? [] : Array.isArray(q.status) ? q.status : [q.status];
  if (
    !walk &&
    statuses.length > 0 &&
    col !== 'created_at' &&
    col !== 'status' &&
    !q.text?.trim() &&
    total > PAGE_TUNING.semiJoinAbove
  ) {
    // A status filter of a few thousand matches, sorted by something else (failed and cancelled in USD
    // by customer: 12,000 of a year's 100,000 USD): the sort index is walked from its own entries,
    // without reading each row for its status (a row read per entry, 8 entries per match there: 5 ms
    // for the fifth page), and each entry is tested against the set of the filter's ids, which its
    // status index gives without reading a row (about 2 ms for 12,000). The "+" keeps the planner from
    // fetching the set's rows and sorting them instead.
    const inner = whereOf([...counted.base, ...counted.arms[0]!]);
    const onSortIndex =
      (col === 'amount_minor' || col === 'lower(customer_name)') && counted.params.currency !== undefined
        ? ['currency = @currency']
        : [];
    const where = whereOf([...onSortIndex, `+id IN (SELECT id FROM collections ${inner})`]);
    sql = `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE id IN (SELECT id FROM collections ${where} ${order} LIMIT ${limit} OFFSET @pageOffset) ${order}`;
    return {
      rows: readStatement(db, sql)
        .all({ ...counted.params, pageOffset: offset })
        .map(collectionRecordOf),
      total,
    };
  }
  if (f.arms.length === 1 || offset + limit > 20_000) {
    // Ids first (often from the index alone), then only the rows of the page.
    const where = whereOf([
      ...f.base,
      ...(f.arms.length === 1 ? f.arms[0]! : [`(${f.arms.map((a) => a.join(' AND ')).join(' OR ')})`]),
    ]);
    sql = `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE id IN (SELECT id FROM collections ${where} ${order} LIMIT ${limit} OFFSET @pageOffset) ${order}`;
  } else {
    // Each arm's first offset+limit rows, in index order; the page is within their union.
    const n = offset + limit;
    // A text arm ranks its prefix range (a month of references is ~85k entries of its lower(...) index).
    // Sorted by time, the arm keeps only rows at least as new (desc) or old (asc) as the worst of the
    // first n rows its index gives in the page's direction: those n are candidates, so the page's rows
    // are among the ones kept. References are made in time order, so that bound is tight and the sort
    // sees about n rows instead of every match (measured on the bench's year: 4.8 ms of CPU for a
    // month's page instead of 16.5 ms). The "+" keeps the planner on the prefix's index rather than
    // walking the whole sort index hoping to meet the prefix early.
    const days = col === 'created_at' && f.excl.length ? dayRange(db, q) : null;
    if (days) Object.assign(f.params, days);
    const armSql = (arm: string[]) => {
      const where = whereOf([...f.base, ...arm]);
      const k = f.excl.findIndex((c) => arm.includes(c));
      const dayIndex = k < 0 ? undefined : DAY_INDEXES[TEXT_COLUMNS[k]!];
      if (days && dayIndex) {
        // Sorted by time, a text arm with a day index reads it a day at a time, in the page's direction:
        // one seek per day into the prefix range, a sort of that day's matches only, and no day after
        // the one where the arm has its n rows (for "md-202603": the days after March are empty seeks,
        // then March's last day gives the newest 100). Ordered by (day, created_at), which is the
        // created_at order for an integer time; the rows of any other time (day NULL) are read apart.
        const byDay = `SELECT id FROM (SELECT id FROM collections INDEXED BY ${dayIndex} ${where} AND ${DAY_OF} IN (WITH RECURSIVE d(x) AS (VALUES (@dlo) UNION ALL SELECT x + 1 FROM d WHERE x < @dhi) SELECT x FROM d) ORDER BY ${DAY_OF} ${dir}, created_at ${dir}, id ${dir} LIMIT ${n})`;
        const other = `SELECT id FROM (SELECT id FROM collections INDEXED BY ${dayIndex} ${where} AND ${DAY_OF} IS NULL ${order} LIMIT ${n})`;
        return `${byDay} UNION ALL ${other}`;
      }
      if (k < 0 || (q.text?.trim().length ?? 0) < 3)
        return `SELECT id FROM (SELECT id FROM collections ${where} ${order} LIMIT ${n})`;
      const plusOrder = `ORDER BY ${terms.map((t) => `+${t} ${dir}`).join(', ')}, id ${dir}`;
      if (col !== 'created_at') return `SELECT id FROM (SELECT id FROM collections ${where} ${plusOrder} LIMIT ${n})`;
      const bound = `(SELECT ${dir === 'DESC' ? 'min' : 'max'}(created_at) FROM (SELECT created_at FROM collections ${where} ORDER BY ${TEXT_COLUMNS[k]} ${dir} LIMIT ${n}))`;
      return `SELECT id FROM (SELECT id FROM collections ${where} AND +created_at ${dir === 'DESC' ? '>=' : '<='} ${bound} ${plusOrder} LIMIT ${n})`;
    };
    const union = f.arms.map(armSql).join(' UNION ALL ');
    sql = `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE id IN (${union}) ${order} LIMIT ${limit} OFFSET @pageOffset`;
  }
  return {
    rows: readStatement(db, sql)
      .all({ ...f.params, pageOffset: offset })
      .map(collectionRecordOf),
    total,
  };
}
