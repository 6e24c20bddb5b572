// The exceptions queue: summary and counts, filtered list, detail with every source side by side,
// resolution by a person (an appended 'resolution' event; history is never rewritten), and the audit
// list of every event. Results are plain JSON (times ISO 8601, amounts integer minor units + currency).
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { EXCEPTION_KINDS, isExceptionKind, RECON_KINDS, type ReconEvent, type ReconKind } from './classify.js';
import type {
  AuditEvent,
  ExceptionDetail,
  ExceptionRow,
  OrphanRow,
  ReconcileSummary,
  SourceColumn,
} from './types.shared.js';

export type {
  AuditEvent,
  ExceptionDetail,
  ExceptionRow,
  OrphanRow,
  ReconcileSummary,
  SourceColumn,
  SourceStatusesJson,
} from './types.shared.js';
import { ReconcileError } from './errors.js';
import { NOT_MATCHED } from '../store/sqlite/reconcile/full-pass-sql.js';
import type { NewEvent } from '../collections/events.js';
import { appendEvent } from '../collections/ledger.js';
import { reconcileCollection, requireCollection, type ReconcileOptions } from './reconcile.js';

export const ORPHAN_KIND = 'orphan_callback';

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

/** Counts what the reconciliation table holds (kept current as events are stored): pure reads. */
export function getSummary(db: Db, options: ReconcileOptions = {}): ReconcileSummary {
  const now = options.now ?? Date.now();
  const byOutcome: Record<string, number> = {};
  for (const k of RECON_KINDS) byOutcome[k] = 0;
  // Every outcome but 'matched' from its partial index (migration 011); matched are the rest.
  const collections = db.prepare('SELECT COUNT(*) FROM reconciliation').pluck().get() as number;
  let notMatched = 0;
  for (const r of db
    .prepare(`SELECT outcome, COUNT(*) AS n FROM reconciliation WHERE ${NOT_MATCHED} GROUP BY outcome`)
    .all() as {
    outcome: string;
    n: number;
  }[]) {
    byOutcome[r.outcome] = r.n;
    notMatched += r.n;
  }
  byOutcome.matched = collections - notMatched;
  const openByKind = countsByKind(db);
  const orphans = db
    .prepare(
      'SELECT COUNT(*) AS total, COALESCE(SUM(resolved_by_event_id IS NULL), 0) AS open FROM reconciliation_orphans',
    )
    .get() as { total: number; open: number };
  openByKind[ORPHAN_KIND] = orphans.open;
  const openExceptions = db
    .prepare('SELECT COUNT(*) FROM reconciliation WHERE is_exception = 1')
    .pluck()
    .get() as number;
  const resolved = db
    .prepare(
      `SELECT COUNT(*) FROM reconciliation WHERE ${NOT_MATCHED} AND is_exception = 0 AND resolved_by_event_id IS NOT NULL
         AND outcome IN (${EXCEPTION_KINDS.map(() => '?').join(',')})`,
    )
    .pluck()
    .get(...EXCEPTION_KINDS) as number;
  return { collections, byOutcome, openExceptions, openByKind, orphans, resolved, computedAt: iso(now)! };
}

function countsByKind(db: Db): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of EXCEPTION_KINDS) out[k] = 0;
  for (const r of db
    .prepare(
      `SELECT j.value AS kind, COUNT(*) AS n FROM reconciliation r, json_each(r.open_kinds) j
        WHERE r.is_exception = 1 GROUP BY j.value`,
    )
    .all() as { kind: string; n: number }[])
    out[r.kind] = r.n;
  return out;
}

export interface ExceptionFilter {
  /** An exception kind; 'orphan_callback' is listed by listOrphanCallbacks. */
  kind?: string;
  currency?: string;
  /** created_at range, ms (inclusive from, exclusive to). */
  from?: number;
  to?: number;
  /** Prefix of the merchant or internal reference. */
  text?: string;
  /** Also list exceptions that a person has resolved. */
  includeResolved?: boolean;
  sort?: 'newest' | 'oldest' | 'amount';
  offset?: number;
  limit?: number;
}

interface JoinedRow {
  id: number;
  merchant_reference: string;
  internal_reference: string | null;
  created_at: number;
  amount_minor: number;
  currency: string;
  status: string;
  customer_name: string | null;
  outcome: ReconKind;
  kinds: string;
  open_kinds: string;
  is_exception: number;
  resolved_by_event_id: number | null;
  resolution_note: string | null;
  initiate_status: string | null;
  redirect_status: string | null;
  callback_status: string | null;
  import_status: string | null;
  manual_status: string | null;
  computed_at: number;
}

const JOIN_COLUMNS = `c.id, c.merchant_reference, c.internal_reference, c.created_at, c.amount_minor, c.currency, c.status,
  c.customer_name, r.outcome, r.kinds, r.open_kinds, r.is_exception, r.resolved_by_event_id, r.resolution_note,
  r.initiate_status, r.redirect_status, r.callback_status, r.import_status, r.manual_status, r.computed_at`;

function toRow(r: JoinedRow): ExceptionRow {
  return {
    collectionId: r.id,
    merchantReference: r.merchant_reference,
    internalReference: r.internal_reference,
    createdAt: iso(r.created_at)!,
    amountMinor: r.amount_minor,
    currency: r.currency,
    status: r.status,
    customerName: r.customer_name,
    outcome: r.outcome,
    kinds: JSON.parse(r.kinds) as ReconKind[],
    openKinds: JSON.parse(r.open_kinds) as ReconKind[],
    isException: r.is_exception === 1,
    resolvedByEventId: r.resolved_by_event_id,
    resolutionNote: r.resolution_note,
    sources: {
      initiate: r.initiate_status,
      redirect: r.redirect_status,
      callback: r.callback_status,
      import: r.import_status,
      manual: r.manual_status,
    },
    computedAt: iso(r.computed_at)!,
  };
}

export function listExceptions(
  db: Db,
  filter: ExceptionFilter = {},
  _options: ReconcileOptions = {},
): { rows: ExceptionRow[]; total: number; countsByKind: Record<string, number> } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.includeResolved) {
    where.push(`r.${NOT_MATCHED}`, `r.outcome IN (${EXCEPTION_KINDS.map(() => '?').join(',')})`);
    params.push(...EXCEPTION_KINDS);
  } else {
    where.push('r.is_exception = 1');
  }
  if (filter.kind !== undefined) {
    if (!isExceptionKind(filter.kind)) {
      throw new ReconcileError(
        'validation',
        `kind must be one of ${EXCEPTION_KINDS.join(', ')} (orphan callbacks are listed separately)`,
        'kind',
      );
    }
    where.push(
      `EXISTS (SELECT 1 FROM json_each(${filter.includeResolved ? 'r.kinds' : 'r.open_kinds'}) j WHERE j.value = ?)`,
    );
    params.push(filter.kind);
  }
  if (filter.currency) {
    where.push('c.currency = ?');
    params.push(filter.currency);
  }
  if (filter.from !== undefined) {
    where.push('c.created_at >= ?');
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    where.push('c.created_at < ?');
    params.push(filter.to);
  }
  if (filter.text) {
    const like = filter.text.replace(/[\\%_]/g, (m) => '\\' + m) + '%';
    where.push("(c.merchant_reference LIKE ? ESCAPE '\\' OR c.internal_reference LIKE ? ESCAPE '\\')");
    params.push(like, like);
  }
  const order =
    filter.sort === 'oldest'
      ? 'c.created_at ASC, c.id ASC'
      : filter.sort === 'amount'
        ? 'c.amount_minor DESC, c.id DESC'
        : 'c.created_at DESC, c.id DESC';
  const from = `FROM reconciliation r JOIN collections c ON c.id = r.collection_id WHERE ${where.join(' AND ')}`;
  const total = db
    .prepare(`SELECT COUNT(*) ${from}`)
    .pluck()
    .get(...params) as number;
  const limit = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
  const rows = db
    .prepare(`SELECT ${JOIN_COLUMNS} ${from} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...params, limit, Math.max(filter.offset ?? 0, 0)) as JoinedRow[];
  const counts = countsByKind(db);
  counts[ORPHAN_KIND] = db
    .prepare('SELECT COUNT(*) FROM reconciliation_orphans WHERE resolved_by_event_id IS NULL')
    .pluck()
    .get() as number;
  return { rows: rows.map(toRow), total, countsByKind: counts };
}

/**
 * The currencies this merchant actually has: those of its collections and of its wallets, sorted. The
 * collections part walks the (currency, ...) index one distinct value at a time, so it stays cheap on
 * a million rows.
 */
export function listCurrencies(db: Db): string[] {
  const fromCollections = db
    .prepare(
      `WITH RECURSIVE cur(c) AS (
         SELECT MIN(currency) FROM collections
         UNION ALL
         SELECT (SELECT MIN(currency) FROM collections WHERE currency > cur.c) FROM cur WHERE cur.c IS NOT NULL
       )
       SELECT c FROM cur WHERE c IS NOT NULL`,
    )
    .pluck()
    .all() as string[];
  const fromWallets = db.prepare('SELECT DISTINCT currency FROM balance_wallets').pluck().all() as string[];
  return [...new Set([...fromCollections, ...fromWallets])].sort();
}

export function listOrphanCallbacks(
  db: Db,
  opts: { includeResolved?: boolean; offset?: number; limit?: number } = {},
): { rows: OrphanRow[]; total: number } {
  const where = opts.includeResolved ? '' : 'WHERE resolved_by_event_id IS NULL';
  const total = db.prepare(`SELECT COUNT(*) FROM reconciliation_orphans ${where}`).pluck().get() as number;
  const rows = db
    .prepare(`SELECT * FROM reconciliation_orphans ${where} ORDER BY event_id DESC LIMIT ? OFFSET ?`)
    .all(Math.min(Math.max(opts.limit ?? 100, 1), 1000), Math.max(opts.offset ?? 0, 0)) as {
    event_id: number;
    merchant_reference: string;
    internal_reference: string | null;
    source: string;
    status: string | null;
    received_at: number;
    signature: string;
    amount_minor: number | null;
    currency: string | null;
    resolved_by_event_id: number | null;
  }[];
  return {
    total,
    rows: rows.map((r) => ({
      eventId: r.event_id,
      merchantReference: r.merchant_reference,
      internalReference: r.internal_reference,
      source: r.source,
      status: r.status,
      receivedAt: iso(r.received_at)!,
      signature: r.signature,
      amountMinor: r.amount_minor,
      currency: r.currency,
      resolvedByEventId: r.resolved_by_event_id,
    })),
  };
}

/** A stored event as the queue reads it: what classification sees, plus where it belongs and who made it. */
interface StoredEvent extends ReconEvent {
  collection_id: number | null;
  merchant_reference: string;
  internal_reference: string | null;
  actor: string | null;
}

function toAudit(e: StoredEvent): AuditEvent {
  // Verbatim: parsing and re-serialising would reformat numbers, round large integers and drop duplicate keys.
  const payload = e.payload;
  return {
    id: e.id,
    collectionId: e.collection_id,
    merchantReference: e.merchant_reference,
    internalReference: e.internal_reference,
    source: e.source,
    kind: e.kind,
    status: e.status,
    receivedAt: iso(e.received_at)!,
    signature: e.signature,
    amountMinor: e.amount_minor,
    currency: e.currency,
    payload,
    note: e.note,
    actor: e.actor,
  };
}

const SOURCES: SourceColumn['source'][] = [
  'intent',
  'initiate',
  'redirect',
  'callback',
  'import',
  'manual',
  'security',
];

export function getDetail(db: Db, collectionId: number, _options: ReconcileOptions = {}): ExceptionDetail {
  requireCollection(db, collectionId);
  const collection = db.prepare('SELECT * FROM collections WHERE id = ?').get(collectionId) as Record<string, unknown>;
  for (const k of ['created_at', 'status_changed_at'])
    if (typeof collection[k] === 'number') collection[k] = iso(collection[k] as number);
  const joined = db
    .prepare(`SELECT ${JOIN_COLUMNS} FROM collections c JOIN reconciliation r ON r.collection_id = c.id WHERE c.id = ?`)
    .get(collectionId) as JoinedRow | undefined;
  const events = (
    db.prepare('SELECT * FROM collection_events WHERE collection_id = ? ORDER BY id').all(collectionId) as StoredEvent[]
  ).map(toAudit);
  const sources = SOURCES.map((source): SourceColumn => {
    const mine = events.filter((e) => e.source === source && e.kind !== 'resolution');
    const last = mine.filter((e) => e.status !== null).at(-1) ?? mine.at(-1);
    if (source === 'intent') {
      return {
        source,
        status: last?.status ?? 'INTENT',
        signature: 'not_applicable',
        amountMinor: collection.amount_minor as number,
        currency: collection.currency as string,
        receivedAt: collection.created_at as string,
        events: mine.length,
      };
    }
    return {
      source,
      status: last?.status ?? null,
      signature: last?.signature ?? null,
      amountMinor: last?.amountMinor ?? null,
      currency: last?.currency ?? null,
      receivedAt: last?.receivedAt ?? null,
      events: mine.length,
    };
  });
  return { collection, reconciliation: joined ? toRow(joined) : null, sources, events };
}

export interface ResolveInput {
  /** The collection to resolve, or orphanEventId for a callback with an unknown reference. */
  collectionId?: number;
  orphanEventId?: number;
  note: string;
  actor: string;
  /** The event's key when it was first recorded elsewhere (a team desk records it in the team database first). */
  dedupeKey?: string;
}

function checkedNoteAndActor(input: ResolveInput): { note: string; actor: string } {
  const note = typeof input.note === 'string' ? input.note.trim() : '';
  if (note.length < 3)
    throw new ReconcileError(
      'validation',
      'note is required: say what was checked and why this is resolved (at least 3 characters)',
      'note',
    );
  if (note.length > 2000) throw new ReconcileError('validation', 'note must be at most 2,000 characters', 'note');
  const actor = typeof input.actor === 'string' ? input.actor.trim() : '';
  if (!actor) throw new ReconcileError('validation', 'actor is required: the name of the person resolving', 'actor');
  return { note, actor };
}

/** The resolution event for `input`, or why there is none; runs inside the caller's write transaction. */
function resolutionEvent(db: Db, input: ResolveInput, options: ReconcileOptions, now: number): NewEvent {
  const { note, actor } = checkedNoteAndActor(input);
  // What every resolution says, whichever collection or orphan it is about.
  const resolution = {
    source: 'manual',
    kind: 'resolution',
    status: null,
    receivedAt: now,
    signature: 'not_applicable',
    note,
    actor,
  } as const;
  if (input.collectionId !== undefined) {
    const c = requireCollection(db, input.collectionId);
    const current = reconcileCollection(db, c.id, { ...options, now });
    if (!current?.isException) {
      throw new ReconcileError(
        'conflict',
        `collection ${c.merchant_reference} has no open exception to resolve`,
        'collectionId',
      );
    }
    const ref = db.prepare('SELECT internal_reference FROM collections WHERE id = ?').pluck().get(c.id) as
      string | null;
    return { ...resolution, collectionId: c.id, merchantReference: c.merchant_reference, internalReference: ref };
  }
  if (input.orphanEventId !== undefined) {
    const o = db.prepare('SELECT * FROM reconciliation_orphans WHERE event_id = ?').get(input.orphanEventId) as
      | { merchant_reference: string; internal_reference: string | null; resolved_by_event_id: number | null }
      | undefined;
    if (!o)
      throw new ReconcileError('not_found', `no orphan callback with event id ${input.orphanEventId}`, 'orphanEventId');
    if (o.resolved_by_event_id !== null) {
      throw new ReconcileError(
        'conflict',
        `orphan callback ${o.merchant_reference} is already resolved`,
        'orphanEventId',
      );
    }
    return {
      ...resolution,
      collectionId: null,
      merchantReference: o.merchant_reference,
      internalReference: o.internal_reference,
    };
  }
  throw new ReconcileError('validation', 'collectionId or orphanEventId is required', 'collectionId');
}

/**
 * The resolution resolveException would append, checked the same way but not stored (the collection's
 * reconciliation is brought up to date to check it): a team desk records it in the team database first.
 */
export function prepareResolution(db: Db, input: ResolveInput, options: ReconcileOptions = {}): NewEvent {
  checkedNoteAndActor(input);
  const now = options.now ?? Date.now();
  return writeTransaction(db, () => resolutionEvent(db, input, options, now));
}

/**
 * A person resolves an exception. The note is required. Appends a 'resolution' event (source manual);
 * never changes an earlier event. Returns the new event id.
 */
export function resolveException(db: Db, input: ResolveInput, options: ReconcileOptions = {}): { eventId: number } {
  checkedNoteAndActor(input);
  const now = options.now ?? Date.now();
  return writeTransaction(db, () => {
    // A team desk records the resolution in the team database first; its own sync may have pulled that
    // copy back and stored it already (the notification can beat this call): then it is this resolution.
    if (input.dedupeKey) {
      const stored = db.prepare('SELECT id FROM collection_events WHERE dedupe_key = ?').pluck().get(input.dedupeKey);
      if (typeof stored === 'number') return { eventId: stored };
    }
    const ev = resolutionEvent(db, input, options, now);
    const r = appendEvent(db, input.dedupeKey ? { ...ev, dedupeKey: input.dedupeKey } : ev);
    if (ev.collectionId !== null) reconcileCollection(db, ev.collectionId, { ...options, now });
    return { eventId: r.eventId };
  });
}

export interface AuditFilter {
  collectionId?: number;
  reference?: string;
  source?: string;
  kind?: string;
  from?: number;
  to?: number;
  offset?: number;
  limit?: number;
}

/** Every event and resolution, newest first. */
export function listAudit(db: Db, filter: AuditFilter = {}): { rows: AuditEvent[]; total: number } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.collectionId !== undefined) {
    where.push('collection_id = ?');
    params.push(filter.collectionId);
  }
  if (filter.reference) {
    where.push('merchant_reference = ?');
    params.push(filter.reference);
  }
  if (filter.source) {
    where.push('source = ?');
    params.push(filter.source);
  }
  if (filter.kind) {
    where.push('kind = ?');
    params.push(filter.kind);
  }
  if (filter.from !== undefined) {
    where.push('received_at >= ?');
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    where.push('received_at < ?');
    params.push(filter.to);
  }
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = db
    .prepare(`SELECT COUNT(*) FROM collection_events ${w}`)
    .pluck()
    .get(...params) as number;
  const rows = db
    .prepare(`SELECT * FROM collection_events ${w} ORDER BY id DESC LIMIT ? OFFSET ?`)
    .all(...params, Math.min(Math.max(filter.limit ?? 100, 1), 1000), Math.max(filter.offset ?? 0, 0)) as StoredEvent[];
  return { rows: rows.map(toAudit), total };
}
