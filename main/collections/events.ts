// The one way an event enters a collection's history. Appends (idempotent by dedupe_key) and updates
// the collections projection in the SAME transaction, so the list never disagrees with the history.
//
// Projection rules:
// - intent/initiate events move the status only while it is not final (INTENT -> PENDING/REJECTED/UNKNOWN).
// - An outcome (redirect, callback, import, manual) with a final status sets the status when it is the
//   first final status. A later DIFFERENT final status from a verified source also sets it (the
//   projection shows the newest; the history keeps both) and is stored with kind 'final_status_changed'
//   when the same source family (callback/import, or redirect) changes its own answer; when redirect and
//   callback simply disagree, the flag SOURCES_DISAGREE is set.
// - Unverified events (signature invalid or missing) never change the status; they set BAD_SIGNATURE.
// - A callback whose amount or currency differs from the intent sets AMOUNT_MISMATCH / CURRENCY_MISMATCH.
import type { Db } from '../store/db.js';
import { writeTransaction } from '../store/transaction.js';
import { isFinal, type EventKind, type EventSource, type SignatureState } from './model.js';
import { reconcileAfterAppend } from '../reconcile/incremental.js';

export const FLAGS = {
  FINAL_STATUS_CHANGED: 1,
  AMOUNT_MISMATCH: 2,
  CURRENCY_MISMATCH: 4,
  BAD_SIGNATURE: 8,
  SOURCES_DISAGREE: 16,
} as const;
export type FlagName =
  'final_status_changed' | 'amount_mismatch' | 'currency_mismatch' | 'bad_signature' | 'sources_disagree';

export function flagNames(bits: number): FlagName[] {
  const out: FlagName[] = [];
  if (bits & FLAGS.FINAL_STATUS_CHANGED) out.push('final_status_changed');
  if (bits & FLAGS.AMOUNT_MISMATCH) out.push('amount_mismatch');
  if (bits & FLAGS.CURRENCY_MISMATCH) out.push('currency_mismatch');
  if (bits & FLAGS.BAD_SIGNATURE) out.push('bad_signature');
  if (bits & FLAGS.SOURCES_DISAGREE) out.push('sources_disagree');
  return out;
}

export interface NewEvent {
  collectionId: number | null;
  merchantReference: string;
  internalReference?: string | null;
  source: EventSource;
  kind: EventKind;
  status?: string | null;
  receivedAt: number;
  signature: SignatureState;
  amountMinor?: number | null;
  currency?: string | null;
  /** Same key twice = the same fact; the second append is a no-op. */
  dedupeKey?: string | null;
  /** Raw payload (JSON text); never card data. */
  payload?: string | null;
  note?: string | null;
  actor?: string | null;
  /**
   * What a teammate's desk needs to check a signed event again (collections/evidence.ts): carried to
   * the team record (team.events.evidence), not stored in this desk's collection_events.
   */
  evidence?: string | null;
  /** Projection only (not event columns). */
  paymentUrl?: string | null;
  statusMessage?: string | null;
}

export interface AppendResult {
  inserted: boolean;
  eventId: number;
  /** The kind stored (an 'outcome' may be stored as 'final_status_changed'). */
  kind: string;
  /** The collection's status after the append (null for an orphan). */
  status: string | null;
  statusChanged: boolean;
}

interface ProjectionRow extends Projection {
  id: number;
}

const stmtCache = new WeakMap<Db, ReturnType<typeof prepare>>();
function prepare(db: Db) {
  return {
    insert: db.prepare(
      `INSERT INTO collection_events (collection_id, merchant_reference, internal_reference, source, kind, status, received_at,
         signature, amount_minor, currency, dedupe_key, payload, note, actor)
       VALUES (@collectionId, @merchantReference, @internalReference, @source, @kind, @status, @receivedAt,
         @signature, @amountMinor, @currency, @dedupeKey, @payload, @note, @actor)
       ON CONFLICT (dedupe_key) DO NOTHING`,
    ),
    byKey: db.prepare(`SELECT id, kind FROM collection_events WHERE dedupe_key = ?`),
    row: db.prepare(
      `SELECT id, status, status_changed_at, status_message, redirect_signature, amount_minor, currency, internal_reference, payment_url,
         redirect_status, callback_status, flags, final_changes
       FROM collections WHERE id = ?`,
    ),
    /** UPDATEs by the set of columns that change: an index is rewritten only when a column it holds is SET. */
    updates: new Map<string, ReturnType<Db['prepare']>>(),
  };
}

/** The columns of a collection the events maintain (appendEvent, a new desk's copy and its check). */
export const PROJECTION_COLUMNS = [
  'status',
  'status_changed_at',
  'internal_reference',
  'payment_url',
  'status_message',
  'last_event_id',
  'redirect_status',
  'redirect_signature',
  'callback_status',
  'flags',
  'final_changes',
] as const;
type ProjectionColumn = (typeof PROJECTION_COLUMNS)[number];

function updateProjection(db: Db, id: number, before: ProjectionRow, after: Record<ProjectionColumn, unknown>): void {
  const s = stmts(db);
  const changed = PROJECTION_COLUMNS.filter(
    (c) => c === 'last_event_id' || after[c] !== (before as unknown as Record<string, unknown>)[c],
  );
  const key = changed.join(',');
  let st = s.updates.get(key);
  if (!st) {
    st = db.prepare(`UPDATE collections SET ${changed.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`);
    s.updates.set(key, st);
  }
  st.run({ id, ...Object.fromEntries(changed.map((c) => [c, after[c]])) });
}
function stmts(db: Db) {
  let s = stmtCache.get(db);
  if (!s) {
    s = prepare(db);
    stmtCache.set(db, s);
  }
  return s;
}

const OUTCOME_SOURCES = new Set<EventSource>(['redirect', 'callback', 'import', 'manual']);

/** A collection's projection columns, as the projection rules read them. */
export interface Projection {
  status: string;
  status_changed_at: number;
  status_message: string | null;
  redirect_signature: string | null;
  amount_minor: number;
  currency: string;
  internal_reference: string | null;
  payment_url: string | null;
  redirect_status: string | null;
  callback_status: string | null;
  flags: number;
  final_changes: number;
}

/** What an event makes of a collection's projection: the columns after it, and the kind it is stored with. */
export interface Projected {
  kind: string;
  statusChanged: boolean;
  next: Omit<Projection, 'amount_minor' | 'currency'>;
}

/**
 * The projection rules, pure and in one place: appendEvent applies them to the stored row, and a new
 * team desktop's bulk copy (team/sync/bulk.ts) to the rows it keeps in memory, so both make the same
 * collection from the same events.
 */
export function projectEvent(row: Projection, ev: Omit<NewEvent, 'collectionId'>): Projected {
  let kind: string = ev.kind;
  let status = row.status;
  let statusChanged = false;
  let flags = row.flags;
  let finalChanges = row.final_changes;
  let redirectStatus = row.redirect_status;
  let callbackStatus = row.callback_status;
  const trusted = ev.signature === 'verified' || ev.signature === 'not_applicable';

  // An answer that is not the service's signed word: a signed source that did not verify, or (team desk,
  // team/evidence.ts) an unsigned initialize answer claiming a final status, stored as kind bad_signature.
  const charge = ev.source === 'intent' || ev.source === 'initiate';
  if ((ev.signature === 'invalid' || ev.signature === 'missing') && (!charge || ev.kind === 'bad_signature')) {
    flags |= FLAGS.BAD_SIGNATURE;
  }
  if (charge && ev.kind !== 'bad_signature') {
    if (ev.status && !isFinal(row.status) && ev.status !== row.status) {
      status = ev.status;
      statusChanged = true;
    }
  } else if (OUTCOME_SOURCES.has(ev.source) && trusted && isFinal(ev.status)) {
    const isCallback = ev.source === 'callback' || ev.source === 'import';
    const isRedirect = ev.source === 'redirect';
    const ownPrevious = isCallback ? callbackStatus : isRedirect ? redirectStatus : null;
    const otherPrevious = isCallback ? redirectStatus : isRedirect ? callbackStatus : null;
    if (ownPrevious && ownPrevious !== ev.status) {
      flags |= FLAGS.FINAL_STATUS_CHANGED;
      kind = 'final_status_changed';
    } else if (otherPrevious && otherPrevious !== ev.status) {
      flags |= FLAGS.SOURCES_DISAGREE;
    }
    if (isFinal(row.status) && row.status !== ev.status) finalChanges += 1;
    if (isCallback) callbackStatus = ev.status;
    if (isRedirect) redirectStatus = ev.status;
    if (row.status !== ev.status) {
      status = ev.status;
      statusChanged = true;
    }
  }
  if ((ev.source === 'callback' || ev.source === 'import') && trusted && ev.kind === 'outcome') {
    if (ev.currency != null && ev.currency !== row.currency) flags |= FLAGS.CURRENCY_MISMATCH;
    else if (ev.currency != null && ev.amountMinor != null && ev.amountMinor !== row.amount_minor)
      flags |= FLAGS.AMOUNT_MISMATCH;
    else if (ev.currency != null && ev.amountMinor == null) flags |= FLAGS.AMOUNT_MISMATCH;
  }
  return {
    kind,
    statusChanged,
    next: {
      status,
      status_changed_at: statusChanged ? ev.receivedAt : row.status_changed_at,
      internal_reference: row.internal_reference ?? (trusted ? (ev.internalReference ?? null) : null),
      payment_url: (trusted && ev.paymentUrl) || row.payment_url,
      // The service's own words (a callback's status_message) beat a redirect's generic text.
      status_message: statusChanged
        ? (ev.statusMessage ?? null)
        : trusted && (ev.source === 'callback' || ev.source === 'import') && ev.status === status && ev.statusMessage
          ? ev.statusMessage
          : row.status_message,
      redirect_status: redirectStatus,
      redirect_signature: ev.source === 'redirect' ? ev.signature : row.redirect_signature,
      callback_status: callbackStatus,
      flags,
      final_changes: finalChanges,
    },
  };
}

/** Appends one event and updates the projection, in one transaction. Idempotent by dedupeKey. */
export function appendEvent(db: Db, ev: NewEvent): AppendResult {
  return writeTransaction(db, () => append(db, ev));
}

/**
 * appendEvent without a savepoint of its own, for a caller already inside a write transaction that is
 * rolled back WHOLE when this throws (the callback receiver's group commit, which then stores each
 * delivery alone). A savepoint per event cost more than the event's own statements; without it, a
 * throw after the insert would leave the event without its projection, hence the contract.
 */
export function appendEventInTransaction(db: Db, ev: NewEvent): AppendResult {
  if (!db.inTransaction) throw new Error('appendEventInTransaction must run inside a write transaction');
  return append(db, ev);
}

function append(db: Db, ev: NewEvent): AppendResult {
  const s = stmts(db);
  // No look-up of the dedupe key first: the insert below skips a stored key (ON CONFLICT DO NOTHING,
  // and the no_replace_key trigger), and only then is the stored event read. A duplicate is rare; a
  // look-up before every insert was one more index probe for each new event.
  const row = ev.collectionId === null ? undefined : (s.row.get(ev.collectionId) as ProjectionRow | undefined);
  if (ev.collectionId !== null && !row) {
    const existing = ev.dedupeKey ? (s.byKey.get(ev.dedupeKey) as { id: number; kind: string } | undefined) : undefined;
    if (existing)
      return { inserted: false, eventId: existing.id, kind: existing.kind, status: null, statusChanged: false };
    throw new Error(`collection ${ev.collectionId} does not exist`);
  }

  // Decide the projection first: the stored kind depends on it.
  const projected = row ? projectEvent(row, ev) : null;
  const kind = projected?.kind ?? ev.kind;

  const info = s.insert.run({
    collectionId: ev.collectionId,
    merchantReference: ev.merchantReference,
    internalReference: ev.internalReference ?? null,
    source: ev.source,
    kind,
    status: ev.status ?? null,
    receivedAt: ev.receivedAt,
    signature: ev.signature,
    amountMinor: ev.amountMinor ?? null,
    currency: ev.currency ?? null,
    dedupeKey: ev.dedupeKey ?? null,
    payload: ev.payload ?? null,
    note: ev.note ?? null,
    actor: ev.actor ?? null,
  });
  if (info.changes === 0) {
    // The dedupe key is already stored: the same fact (a retry, a re-import, another connection).
    const existing = s.byKey.get(ev.dedupeKey) as { id: number; kind: string };
    return {
      inserted: false,
      eventId: existing.id,
      kind: existing.kind,
      status: row?.status ?? null,
      statusChanged: false,
    };
  }
  const eventId = Number(info.lastInsertRowid);

  if (row && projected) {
    updateProjection(db, row.id, row, { ...projected.next, last_event_id: eventId });
    // Every stored event of a collection is reconciled here, in the same transaction.
    reconcileAfterAppend(db, row.id);
  }
  return {
    inserted: true,
    eventId,
    kind,
    status: projected?.next.status ?? null,
    statusChanged: projected?.statusChanged ?? false,
  };
}
