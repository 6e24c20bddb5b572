// Read side of collections for the UI, CLI and reports: a filtered, sorted page (fast on a year of
// history: every filter and sort rides an index, see migrations 001/002), one collection with its
// timeline, and today's collected total for the daily limit.
import type { Db } from '../store/db.js';
import { flagNames, type FlagName } from './events.js';
import { isFinal } from './model.js';

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

export function toRow(r: RawRow): CollectionRow {
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
  };
}

const ORDER: Record<SortColumn, string> = {
  created_at: 'created_at',
  amount: 'amount_minor',
  currency: 'currency',
  status: 'status',
  reference: 'lower(merchant_reference)',
  customer: 'lower(customer_name)',
};

export function listCollections(db: Db, q: ListQuery = {}): { rows: CollectionRow[]; total: number } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  const statuses = q.status === undefined ? [] : Array.isArray(q.status) ? q.status : [q.status];
  if (statuses.length) {
    where.push(`status IN (${statuses.map((_, i) => `@s${i}`).join(', ')})`);
    statuses.forEach((s, i) => (params[`s${i}`] = s));
  }
  if (q.currency) {
    where.push('currency = @currency');
    params.currency = q.currency.toUpperCase();
  }
  if (q.from !== undefined) {
    where.push('created_at >= @from');
    params.from = q.from;
  }
  if (q.to !== undefined) {
    where.push('created_at < @to');
    params.to = q.to;
  }
  if (q.flagged) where.push('flags <> 0');
  const text = q.text?.trim().toLowerCase();
  if (text) {
    // Prefix ranges on lower(...) indexes (LIKE '%x%' would scan a million rows).
    params.tlo = text;
    params.thi = text + '\uffff';
    where.push(
      `(lower(merchant_reference) >= @tlo AND lower(merchant_reference) < @thi
        OR lower(internal_reference) >= @tlo AND lower(internal_reference) < @thi
        OR lower(customer_name) >= @tlo AND lower(customer_name) < @thi)`,
    );
  }
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const col = q.sort?.column && ORDER[q.sort.column] ? ORDER[q.sort.column] : 'created_at';
  const dir = q.sort?.dir === 'asc' ? 'ASC' : 'DESC';
  const limit = Math.max(1, Math.min(1000, Math.floor(q.limit ?? 100)));
  const offset = Math.max(0, Math.floor(q.offset ?? 0));
  const rows = db
    .prepare(`SELECT ${COLUMNS} FROM collections ${w} ORDER BY ${col} ${dir}, id ${dir} LIMIT ${limit} OFFSET ${offset}`)
    .all(params) as RawRow[];
  const total = (db.prepare(`SELECT count(*) AS n FROM collections ${w}`).get(params) as { n: number }).n;
  return { rows: rows.map(toRow), total };
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
}

function toEvent(e: RawEvent): EventRow {
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
  };
}

const EVENT_COLUMNS = 'id, source, kind, status, received_at, signature, internal_reference, amount_minor, currency, payload, note, actor';

/** One collection by id or merchant reference, with its whole timeline (oldest first); null if unknown. */
export function getCollection(db: Db, idOrReference: number | string): { collection: CollectionRow; events: EventRow[] } | null {
  const raw =
    typeof idOrReference === 'number'
      ? (db.prepare(`SELECT ${COLUMNS} FROM collections WHERE id = ?`).get(idOrReference) as RawRow | undefined)
      : (db.prepare(`SELECT ${COLUMNS} FROM collections WHERE merchant_reference = ?`).get(idOrReference) as RawRow | undefined);
  if (!raw) return null;
  const events = db.prepare(`SELECT ${EVENT_COLUMNS} FROM collection_events WHERE collection_id = ? ORDER BY id`).all(raw.id) as RawEvent[];
  return { collection: toRow(raw), events: events.map(toEvent) };
}

/** Callbacks for references we do not know, newest first (kept for review). */
export function listOrphans(db: Db, opts: { offset?: number; limit?: number } = {}): { rows: (EventRow & { merchantReference: string })[]; total: number } {
  const limit = Math.max(1, Math.min(1000, opts.limit ?? 100));
  const rows = db
    .prepare(
      `SELECT ${EVENT_COLUMNS}, merchant_reference FROM collection_events WHERE collection_id IS NULL AND source IN ('callback', 'import') ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?`,
    )
    .all(limit, Math.max(0, opts.offset ?? 0)) as (RawEvent & { merchant_reference: string })[];
  const total = (db.prepare(`SELECT count(*) AS n FROM collection_events WHERE collection_id IS NULL AND source IN ('callback', 'import')`).get() as { n: number }).n;
  return { rows: rows.map((r) => ({ ...toEvent(r), merchantReference: r.merchant_reference })), total };
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
