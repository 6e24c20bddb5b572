// What an event is and what it makes of its collection: the event's shape, the flags and the projection
// rules. The one way an event is stored is the ledger (ledger.ts), which applies these rules in the
// append's transaction, so the list never disagrees with the history.
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
import { isFinal, type EventKind, type EventSource, type SignatureState } from './model.js';
import type { ProjectionColumns } from '../store/sqlite/ledger/projection.js';

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
   * the team record (team.events.evidence; a desk's own charge events through their outbox row), not
   * stored in this desk's collection_events.
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

/** The columns of a collection the events maintain (the ledger's append, a new desk's copy and its check). */
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
const OUTCOME_SOURCES = new Set<EventSource>(['redirect', 'callback', 'import', 'manual']);

/** A collection's projection columns, as the projection rules read them (defined with the table). */
export type Projection = ProjectionColumns;

/** What an event makes of a collection's projection: the columns after it, and the kind it is stored with. */
export interface Projected {
  kind: string;
  statusChanged: boolean;
  next: Omit<Projection, 'amount_minor' | 'currency'>;
}

/**
 * The projection rules, pure and in one place: the ledger's append applies them to the stored row, and a new
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
