// The team outbox's rows (store migrations 015, 016): written by the ledger in the append's transaction,
// read and settled by the push (team/sync/push.ts). An entry is the stored event as the team copy
// needs it; sending it and deciding what a failure means is the push's business.
import type { Db } from '../store/sqlite/connection.js';
import { insertOutboxRow, pendingOutboxRows } from '../store/sqlite/ledger/outbox.js';
import type { NewEvent } from './event-rules.js';
import type { EventKind, EventSource, SignatureState } from './model.js';

// Settling an entry is only its row's state: the store's statements are the whole of it.
export {
  markOutboxRefused,
  markOutboxSent,
  noteOutboxOutage,
  outboxCounts,
  type OutboxCounts,
} from '../store/sqlite/ledger/outbox.js';

export interface OutboxEntry {
  id: number;
  eventId: number;
  eventKey: string;
  /** The event as it was appended (its dedupeKey is eventKey), for the team copy. */
  event: NewEvent;
  attempts: number;
}

/** In the ledger's transaction: the event `eventId` (just stored, keyed for the team) waits for the team database. */
export function addToOutbox(db: Db, eventId: number, ev: NewEvent, now: number): void {
  if (!ev.dedupeKey) throw new Error('an outbox event needs its team key');
  insertOutboxRow(
    db,
    {
      eventId,
      eventKey: ev.dedupeKey,
      kind: ev.kind,
      paymentUrl: ev.paymentUrl ?? null,
      statusMessage: ev.statusMessage ?? null,
      evidence: ev.evidence ?? null,
    },
    now,
  );
}

/** The oldest `limit` entries still to send, in the order they were written. */
export function pendingOutbox(db: Db, limit: number): OutboxEntry[] {
  return pendingOutboxRows(db, limit).map((r) => ({
    id: r.id,
    eventId: r.event_id,
    eventKey: r.event_key,
    attempts: r.attempts,
    event: {
      collectionId: r.collection_id,
      merchantReference: r.merchant_reference,
      internalReference: r.internal_reference,
      // What this desk stored itself: the ledger wrote these columns from the same types.
      source: r.source as EventSource,
      kind: r.kind as EventKind,
      status: r.status,
      receivedAt: r.received_at,
      signature: r.signature as SignatureState,
      amountMinor: r.amount_minor,
      currency: r.currency,
      dedupeKey: r.event_key,
      payload: r.payload,
      evidence: r.evidence,
      note: r.note,
      actor: r.actor,
      paymentUrl: r.payment_url,
      statusMessage: r.status_message,
    },
  }));
}

/** What a refused event shows on the desk. */
export function refusalText(reason: string): string {
  return `not accepted by the team database: ${reason}`;
}
