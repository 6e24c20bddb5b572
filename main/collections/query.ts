// Read side of collections for the UI, CLI and reports: a filtered, sorted page (fast on a year of
// history: every filter and sort rides an index, see migrations 001/002), one collection with its
// timeline, and today's collected total for the daily limit.
import type { Db } from '../store/sqlite/connection.js';
import { flagNames, type FlagName } from './events.js';
import { isFinal } from './model.js';
import { refusalText } from './outbox.js';

export const SORT_COLUMNS = ['created_at', 'amount', 'currency', 'status', 'reference', 'customer'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

export interface ListQuery {
  status?: string | string[];
  currency?: string;
  /** created_at >= from (ms) */
  from?: number;
  /** created_at < to (ms) */
  to?: number;
  /** Prefix of the merchant reference, internal reference or customer name (case-insensitive). */
  text?: string;
  flagged?: boolean;
  sort?: { column: SortColumn; dir: 'asc' | 'desc' };
  offset?: number;
  limit?: number;
}

/** What each source says about a collection, and whether they agree. */
export interface SourcesAgree {
  initiate: string | null;
  redirect: string | null;
  redirectSignature: string | null;
  callback: string | null;
  /** true: every source that has spoken gives the same final status; null: nothing final yet. */
  agree: boolean | null;
}

export interface CollectionRow {
  id: number;
  merchantReference: string;
  internalReference: string | null;
  createdAt: number;
  amountMinor: number;
  currency: string;
  description: string;
  customerName: string | null;
  customerEmail: string | null;
  chargeCustomer: boolean;
  allowFinalStatusChange: boolean;
  operator: string;
  providerCode: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  status: string;
  statusChangedAt: number;
  statusMessage: string | null;
  paymentUrl: string | null;
  sources: SourcesAgree;
  flags: FlagName[];
  finalChanges: number;
  /** On a team desk: how many of its events the team database refused (each says why in the timeline). */
  teamRefused: number;
  /**
   * On a new team desk: it rests on a signed event taken from the team's snapshot whose signature this
   * desk has not re-checked yet ("signature being checked"); until then it counts as neither matched nor final.
   */
  signatureBeingChecked: boolean;
}

interface RawRow {
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
}

const COLUMNS = `id, merchant_reference, internal_reference, created_at, amount_minor, currency, description, customer_name,
  customer_email, charge_customer, allow_final_status_change, operator, provider_code, card_brand, card_last4, status,
  status_changed_at, status_message, payment_url, redirect_status, redirect_signature, callback_status, flags, final_changes`;

/**
 * Events the team database refused, by collection (team desks; see collections/outbox.ts). Read apart
 * from the page's statement, so its plan stays the index's: it walks the refused outbox rows only (a
 * partial index; normally there are none).
 */
function refusedByCollection(db: Db): Map<number, number> {
  const rows = cached(
    db,
    `SELECT e.collection_id AS id, COUNT(*) AS n FROM team_outbox o JOIN collection_events e ON e.id = o.event_id
     WHERE o.state = 'refused' AND e.collection_id IS NOT NULL GROUP BY e.collection_id`,
  ).all({}) as { id: number; n: number }[];
  return new Map(rows.map((r) => [r.id, r.n]));
}

const SIGNED = "('callback', 'import', 'redirect')";

/** The events a new team desk took from a snapshot and has not re-checked (store migration 18), or null. */
function uncheckedRange(db: Db): { lo: number; hi: number } | null {
  const r = cached(
    db,
    'SELECT checked_event_id AS lo, upto_event_id AS hi FROM team_signature_check WHERE one_row = 1',
  ).get({}) as { lo: number; hi: number } | undefined;
  return r && r.lo < r.hi ? r : null;
}

/**
 * Whether a collection rests on a signed event a new team desk took from the snapshot and has not
 * re-checked yet: such a collection is not reconciled until it is (app/ledger.ts), so it never counts
 * as matched on a signature this desk did not check.
 */
export function restsOnUncheckedSignature(db: Db, collectionId: number): boolean {
  const range = uncheckedRange(db);
  return (
    range !== null &&
    cached(
      db,
      `SELECT 1 FROM collection_events WHERE collection_id = @id AND id > @lo AND id <= @hi AND source IN ${SIGNED} LIMIT 1`,
    ).get({ id: collectionId, ...range }) !== undefined
  );
}

/** Which of `ids` rest on a signed event whose signature this desk has not re-checked yet. */
function checkingSignatures(db: Db, ids: readonly number[]): Set<number> {
  const range = uncheckedRange(db);
  if (!range || !ids.length) return new Set();
  const rows = db
    .prepare(
      `SELECT DISTINCT collection_id FROM collection_events
       WHERE collection_id IN (SELECT value FROM json_each(?)) AND id > ? AND id <= ? AND source IN ${SIGNED}`,
    )
    .pluck()
    .all(JSON.stringify(ids), range.lo, range.hi) as number[];
  return new Set(rows);
}

export function toRow(
  r: RawRow,
  refused: ReadonlyMap<number, number> = new Map(),
  checking: ReadonlySet<number> = new Set(),
): CollectionRow {
  const initiate = isFinal(r.status) ? null : r.status;
  const said = [r.redirect_status, r.callback_status].filter((x): x is string => !!x);
  return {
    id: r.id,
    merchantReference: r.merchant_reference,
    internalReference: r.internal_reference,
    createdAt: r.created_at,
    amountMinor: r.amount_minor,
    currency: r.currency,
    description: r.description,
    customerName: r.customer_name,
    customerEmail: r.customer_email,
    chargeCustomer: !!r.charge_customer,
    allowFinalStatusChange: !!r.allow_final_status_change,
    operator: r.operator,
    providerCode: r.provider_code,
    cardBrand: r.card_brand,
    cardLast4: r.card_last4,
    status: r.status,
    statusChangedAt: r.status_changed_at,
    statusMessage: r.status_message,
    paymentUrl: r.payment_url,
    sources: {
      initiate,
      redirect: r.redirect_status,
      redirectSignature: r.redirect_signature,
      callback: r.callback_status,
      agree: said.length === 0 ? null : said.every((s) => s === r.status),
    },
    flags: flagNames(r.flags),
    finalChanges: r.final_changes,
    teamRefused: refused.get(r.id) ?? 0,
    signatureBeingChecked: checking.has(r.id),
  };
}

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

type Statement = ReturnType<Db['prepare']>;

// Prepared statements per connection, by SQL text: preparing costs more than running a page query.
const stmtCache = new WeakMap<Db, Map<string, Statement>>();
function cached(db: Db, sql: string): Statement {
  let m = stmtCache.get(db);
  if (!m) stmtCache.set(db, (m = new Map()));
  let st = m.get(sql);
  if (!st) {
    if (m.size >= 200) m.delete(m.keys().next().value!);
    st = db.prepare(sql);
    m.set(sql, st);
  }
  return st;
}

// Totals per connection and filter: counting a status over a year is O(rows), so a total is counted
// once per filter and reused while nothing has been written (paging, re-sorting). Any write on this
// connection (total_changes) or a commit by another one (data_version) counts again.
const totalCache = new WeakMap<Db, Map<string, { version: string; total: number }>>();
function dataVersion(db: Db): string {
  const changes = cached(db, 'SELECT total_changes()').pluck().get() as number;
  const other = cached(db, 'PRAGMA data_version').pluck().get() as number;
  return `${changes}:${other}`;
}

type Params = Record<string, unknown>;

/** What a text filter matches a prefix of, each on its own lower(...) index (migrations 002, 005). */
const TEXT_COLUMNS = ['lower(merchant_reference)', 'lower(internal_reference)', 'lower(customer_name)'] as const;

/** The WHERE of a list query, split into arms (alternatives) that each ride an index in sort order. */
function filterArms(
  q: ListQuery,
  col: string,
  walkSortIndex = false,
): { base: string[]; arms: string[][]; excl: string[]; params: Params; signature: string } {
  const base: string[] = [];
  const params: Params = {};
  // Walking the sort index: a unary "+" keeps a term from choosing the index (it is only tested).
  const p = (column: string, keep = false) => (walkSortIndex && !keep ? `+${column}` : column);
  const statuses = [...new Set(q.status === undefined ? [] : Array.isArray(q.status) ? q.status : [q.status])].sort();
  if (q.currency) {
    base.push(`${p('currency', col === 'amount_minor' || col === 'lower(customer_name)')} = @currency`);
    params.currency = q.currency.toUpperCase();
  }
  if (q.from !== undefined) {
    base.push(`${p('created_at')} >= @from`);
    params.from = q.from;
  }
  if (q.to !== undefined) {
    base.push(`${p('created_at')} < @to`);
    params.to = q.to;
  }
  if (q.flagged) base.push(`${p('flags')} <> 0`);
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
  const text = q.text?.trim().toLowerCase();
  // Prefix ranges on lower(...) indexes (LIKE '%x%' would scan a million rows).
  const textArms = text ? TEXT_COLUMNS.map((c) => `${c} >= @tlo AND ${c} < @thi`) : [null];
  if (text) {
    params.tlo = text;
    params.thi = text + '\uffff';
  }
  const arms: string[][] = [];
  for (const sa of statusArms) for (const ta of textArms) arms.push([sa, ta].filter((x): x is string => x !== null));
  const signature = JSON.stringify([
    statuses,
    params.currency ?? null,
    q.from ?? null,
    q.to ?? null,
    !!q.flagged,
    text ?? null,
  ]);
  return { base, arms, excl: text ? (textArms as string[]) : [], params, signature };
}

function whereOf(parts: string[]): string {
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

/** Counts rows matching the filter; text arms overlap, so each counts only rows the earlier ones did not. */
function countCollections(db: Db, f: ReturnType<typeof filterArms>): number {
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
    total +=
      (cached(db, `SELECT count(*) FROM collections ${whereOf([...f.base, ...arm, ...notEarlier])}`)
        .pluck()
        .get(f.params) as number) ?? 0;
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
export const PAGE_TUNING = { sortIndexAbove: 20_000 };

export function listCollections(db: Db, q: ListQuery = {}): { rows: CollectionRow[]; total: number } {
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
  let sql: string;
  if (f.arms.length === 1 || offset + limit > 20_000) {
    // Ids first (often from the index alone), then only the rows of the page.
    const where = whereOf([
      ...f.base,
      ...(f.arms.length === 1 ? f.arms[0]! : [`(${f.arms.map((a) => a.join(' AND ')).join(' OR ')})`]),
    ]);
    sql = `SELECT ${COLUMNS} FROM collections WHERE id IN (SELECT id FROM collections ${where} ${order} LIMIT ${limit} OFFSET ${offset}) ${order}`;
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
    const armSql = (arm: string[]) => {
      const where = whereOf([...f.base, ...arm]);
      const k = f.excl.findIndex((c) => arm.includes(c));
      if (k < 0 || (q.text?.trim().length ?? 0) < 3)
        return `SELECT id FROM (SELECT id FROM collections ${where} ${order} LIMIT ${n})`;
      const plusOrder = `ORDER BY ${terms.map((t) => `+${t} ${dir}`).join(', ')}, id ${dir}`;
      if (col !== 'created_at') return `SELECT id FROM (SELECT id FROM collections ${where} ${plusOrder} LIMIT ${n})`;
      const bound = `(SELECT ${dir === 'DESC' ? 'min' : 'max'}(created_at) FROM (SELECT created_at FROM collections ${where} ORDER BY ${TEXT_COLUMNS[k]} ${dir} LIMIT ${n}))`;
      return `SELECT id FROM (SELECT id FROM collections ${where} AND +created_at ${dir === 'DESC' ? '>=' : '<='} ${bound} ${plusOrder} LIMIT ${n})`;
    };
    const union = f.arms.map(armSql).join(' UNION ALL ');
    sql = `SELECT ${COLUMNS} FROM collections WHERE id IN (${union}) ${order} LIMIT ${limit} OFFSET ${offset}`;
  }
  const rows = cached(db, sql).all(f.params) as RawRow[];
  const refused = refusedByCollection(db);
  const checking = checkingSignatures(
    db,
    rows.map((r) => r.id),
  );
  return { rows: rows.map((r) => toRow(r, refused, checking)), total };
}

export interface EventRow {
  id: number;
  source: string;
  kind: string;
  status: string | null;
  receivedAt: number;
  signature: string;
  internalReference: string | null;
  amountMinor: number | null;
  currency: string | null;
  /** The raw payload as stored (callback body bytes, redirect query, initialize answer). */
  payload: string | null;
  note: string | null;
  actor: string | null;
  /** On a team desk, when the team database refused this event: "not accepted by the team database: <why>". */
  teamRefused: string | null;
  /** A signed event a new team desk took from the snapshot and has not re-checked yet. */
  signatureBeingChecked: boolean;
}

interface RawEvent {
  id: number;
  source: string;
  kind: string;
  status: string | null;
  received_at: number;
  signature: string;
  internal_reference: string | null;
  amount_minor: number | null;
  currency: string | null;
  payload: string | null;
  note: string | null;
  actor: string | null;
  team_refused: string | null;
}

function toEvent(e: RawEvent, unchecked: { lo: number; hi: number } | null = null): EventRow {
  return {
    id: e.id,
    source: e.source,
    kind: e.kind,
    status: e.status,
    receivedAt: e.received_at,
    signature: e.signature,
    internalReference: e.internal_reference,
    amountMinor: e.amount_minor,
    currency: e.currency,
    payload: e.payload,
    note: e.note,
    actor: e.actor,
    teamRefused: e.team_refused === null ? null : refusalText(e.team_refused),
    signatureBeingChecked:
      unchecked !== null &&
      e.id > unchecked.lo &&
      e.id <= unchecked.hi &&
      (e.source === 'callback' || e.source === 'import' || e.source === 'redirect'),
  };
}

const EVENT_COLUMNS =
  'id, source, kind, status, received_at, signature, internal_reference, amount_minor, currency, payload, note, actor, ' +
  // A refusal by the team database stays on the desk with its reason (team outbox, store migration 015).
  "(SELECT o.reason FROM team_outbox o WHERE o.event_id = collection_events.id AND o.state = 'refused') AS team_refused";

/** One collection by id or merchant reference, with its whole timeline (oldest first); null if unknown. */
export function getCollection(
  db: Db,
  idOrReference: number | string,
): { collection: CollectionRow; events: EventRow[] } | null {
  const raw =
    typeof idOrReference === 'number'
      ? (db.prepare(`SELECT ${COLUMNS} FROM collections WHERE id = ?`).get(idOrReference) as RawRow | undefined)
      : (db.prepare(`SELECT ${COLUMNS} FROM collections WHERE merchant_reference = ?`).get(idOrReference) as
          RawRow | undefined);
  if (!raw) return null;
  const events = db
    .prepare(`SELECT ${EVENT_COLUMNS} FROM collection_events WHERE collection_id = ? ORDER BY id`)
    .all(raw.id) as RawEvent[];
  const unchecked = uncheckedRange(db);
  const timeline = events.map((e) => toEvent(e, unchecked));
  const checking = new Set(timeline.some((e) => e.signatureBeingChecked) ? [raw.id] : []);
  return { collection: toRow(raw, refusedByCollection(db), checking), events: timeline };
}

/** Start of the local calendar day containing `now`, unless a UTC offset (minutes) is given. */
export function startOfDay(now: number, utcOffsetMinutes?: number): number {
  if (utcOffsetMinutes === undefined) {
    const d = new Date(now);
    d.setHours(0, 0, 0, 0);
    return d.getTime();
  }
  const shifted = now + utcOffsetMinutes * 60_000;
  return shifted - (((shifted % 86_400_000) + 86_400_000) % 86_400_000) - utcOffsetMinutes * 60_000;
}

/** Sum (minor units) of today's COMPLETED and PENDING collections in `currency`, for the daily limit. */
export function collectedToday(db: Db, currency: string, now: number, utcOffsetMinutes?: number): number {
  const from = startOfDay(now, utcOffsetMinutes);
  const r = db
    .prepare(
      `SELECT coalesce(sum(amount_minor), 0) AS total FROM collections
       WHERE currency = ? AND created_at >= ? AND status IN ('COMPLETED', 'PENDING')`,
    )
    .get(currency.toUpperCase(), from) as { total: number };
  return r.total;
}
