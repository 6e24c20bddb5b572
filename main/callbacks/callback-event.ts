// The event a verified callback becomes, built in ONE place and handed to whichever store keeps it: the
// desktop's SQLite ledger (ingest.ts storeVerifiedCallback), and the team record: a team desk's import
// recorded there first (import-jsonl.ts eventsOfImport) and serve's PostgreSQL store
// (serve/team-callback-store.ts, through team/record.ts toTeamEvent), both as teamCallbackCopy. Every copy carries the same
// fields and dedupe key, so a desk that pulls the team's copy of a callback it also received has one event.
import type { NewEvent } from '../collections/event-rules.js';

/** Where a verified callback came from: the service's POST, or a file of them imported. */
export type CallbackSource = 'callback' | 'import';

/** A verified callback as an event, before any store sees it: what every store writes, field for field. */
export interface VerifiedCallback {
  reference: string;
  internalReference: string;
  status: string;
  amountMinor: number | null;
  currency: string | null;
  statusMessage: string | null;
  /** Set when a field we do not sign was unreadable (the outcome is kept, the amount flagged). */
  warning?: string;
  /** sha256 of the body's canonical JSON: the heart of the dedupe key. */
  digest: string;
  /** The dedupe key: reference first, then the digest (see below). */
  dedupeKey: string;
  /** The body exactly as received. */
  payload: string;
  /** The signature headers as received, for a teammate's desk to check again (collections/evidence.ts). */
  evidence: string;
}

/** What the event's note says about an unreadable unsigned field (every store writes the same). */
function warningNote(warning: string | undefined): string | undefined {
  return warning ? `unreadable field: ${warning}` : undefined;
}

/** The words shown next to the status: the service's own, or which source said it. */
function callbackStatusMessage(cb: VerifiedCallback): string {
  return cb.statusMessage ?? `callback: ${cb.status}`;
}

/**
 * The collection event a verified callback is stored as. `collectionId` is the local collection it
 * belongs to (null: an orphan, or a copy for the team record, where each desk finds its own).
 */
export function callbackEvent(
  cb: VerifiedCallback,
  source: CallbackSource,
  now: number,
  collectionId: number | null,
): NewEvent {
  const note = warningNote(cb.warning);
  return {
    collectionId,
    merchantReference: cb.reference,
    internalReference: cb.internalReference,
    source,
    kind: 'outcome',
    status: cb.status,
    receivedAt: now,
    signature: 'verified',
    amountMinor: cb.amountMinor,
    currency: cb.currency,
    dedupeKey: cb.dedupeKey,
    payload: cb.payload,
    evidence: cb.evidence,
    statusMessage: callbackStatusMessage(cb),
    ...(note ? { note } : {}),
  };
}

/**
 * The same event as the team record keeps it (serve's store, and what a team desk records before an
 * import): the team log takes only a 3-letter currency code, so an unreadable one (the parse warned)
 * is left out there and said in the note. This desk's own copy keeps it as sent (and is flagged).
 */
export function teamCallbackCopy(cb: VerifiedCallback, source: CallbackSource, now: number): NewEvent {
  const ev = callbackEvent(cb, source, now, null);
  if (cb.currency === null || /^[A-Z]{3}$/.test(cb.currency)) return ev;
  const note = [ev.note, `currency as sent: ${cb.currency}`].filter(Boolean).join('; ');
  return { ...ev, currency: null, note };
}
