// The team outbox's rows (store migrations 015, 016): written by the ledger in the append's transaction,
// read and settled by the push (team/sync/push.ts). An entry is the stored event as the team copy
// needs it; sending it and deciding what a failure means is the push's business.
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import type { NewEvent } from './events.js';
import type { EventKind, EventSource, SignatureState } from './model.js';

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
  db.prepare(
    `INSERT INTO team_outbox (event_id, event_key, kind, payment_url, status_message, evidence, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(eventId, ev.dedupeKey, ev.kind, ev.paymentUrl ?? null, ev.statusMessage ?? null, ev.evidence ?? null, now, now);
}

interface Row {
  id: number;
  event_id: number;
  event_key: string;
  kind: string;
  payment_url: string | null;
  status_message: string | null;
  evidence: string | null;
  attempts: number;
  collection_id: number | null;
  merchant_reference: string;
  internal_reference: string | null;
  source: EventSource;
  status: string | null;
  received_at: number;
  signature: SignatureState;
  amount_minor: number | null;
  currency: string | null;
  payload: string | null;
  note: string | null;
  actor: string | null;
}

/** The oldest `limit` entries still to send, in the order they were written. */
export function pendingOutbox(db: Db, limit: number): OutboxEntry[] {
  const rows = db
    .prepare(
      `SELECT o.id, o.event_id, o.event_key, o.kind, o.payment_url, o.status_message, o.evidence, o.attempts,
         e.collection_id, e.merchant_reference, e.internal_reference, e.source, e.status, e.received_at, e.signature,
         e.amount_minor, e.currency, e.payload, e.note, e.actor
       FROM team_outbox o JOIN collection_events e ON e.id = o.event_id
       WHERE o.state = 'pending' ORDER BY o.id LIMIT ?`,
    )
    .all(limit) as Row[];
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    eventKey: r.event_key,
    attempts: r.attempts,
    event: {
      collectionId: r.collection_id,
      merchantReference: r.merchant_reference,
      internalReference: r.internal_reference,
      source: r.source,
      kind: r.kind as EventKind,
      status: r.status,
      receivedAt: r.received_at,
      signature: r.signature,
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

/** The team database has these entries (stored now, or already before: the key is what counts). */
export function markOutboxSent(db: Db, ids: readonly number[], now: number): void {
  if (!ids.length) return;
  writeTransaction(db, () => {
    const st = db.prepare(
      `UPDATE team_outbox SET state = 'sent', attempts = attempts + 1, reason = NULL, updated_at = ? WHERE id = ? AND state = 'pending'`,
    );
    for (const id of ids) st.run(now, id);
  });
}

/** The team database refused this entry (not an outage): it stays on the desk with why, and is not sent again. */
export function markOutboxRefused(db: Db, id: number, reason: string, now: number): void {
  writeTransaction(db, () => {
    db.prepare(
      `UPDATE team_outbox SET state = 'refused', attempts = attempts + 1, reason = ?, updated_at = ? WHERE id = ? AND state = 'pending'`,
    ).run(reason, now, id);
  });
}

/** A try that met an outage: the entries stay pending; `reason` says what the last try met. */
export function noteOutboxOutage(db: Db, ids: readonly number[], reason: string, now: number): void {
  if (!ids.length) return;
  writeTransaction(db, () => {
    const st = db.prepare(
      `UPDATE team_outbox SET attempts = attempts + 1, reason = ?, updated_at = ? WHERE id = ? AND state = 'pending'`,
    );
    for (const id of ids) st.run(reason, now, id);
  });
}

export interface OutboxCounts {
  pending: number;
  refused: number;
}

export function outboxCounts(db: Db): OutboxCounts {
  const r = db
    .prepare(
      `SELECT (SELECT COUNT(*) FROM team_outbox WHERE state = 'pending') AS pending,
              (SELECT COUNT(*) FROM team_outbox WHERE state = 'refused') AS refused`,
    )
    .get() as OutboxCounts;
  return r;
}

/** What a refused event shows on the desk. */
export function refusalText(reason: string): string {
  return `not accepted by the team database: ${reason}`;
}
