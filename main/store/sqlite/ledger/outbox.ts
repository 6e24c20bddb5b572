// The team outbox's rows (team_outbox, store migrations 015, 016): an entry is written in the ledger's
// append transaction and settled by the push (team/sync/push.ts). collections/outbox.ts says what an
// entry means; these are its statements.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { eventColumnsOf, type CollectionEventRow } from './collection-events.js';
import { int, intOrNull, rowMapper, text, textOrNull, type RawRow } from '../../columns.js';
import { writeTransaction } from '../transaction.js';

/** What the team copy needs besides the event's own row. */
export interface OutboxInsert {
  eventId: number;
  eventKey: string;
  kind: string;
  paymentUrl: string | null;
  statusMessage: string | null;
  evidence: string | null;
}

/** In the caller's (the append's) transaction. */
export function insertOutboxRow(db: WriteDb, o: OutboxInsert, now: number): void {
  statement(
    db,
    `INSERT INTO team_outbox (event_id, event_key, kind, payment_url, status_message, evidence, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(o.eventId, o.eventKey, o.kind, o.paymentUrl, o.statusMessage, o.evidence, now, now);
}

/** A pending entry with its stored event's columns. */
export interface PendingOutboxRow extends Omit<CollectionEventRow, 'id' | 'kind' | 'dedupe_key'> {
  id: number;
  event_id: number;
  event_key: string;
  kind: string;
  payment_url: string | null;
  status_message: string | null;
  evidence: string | null;
  attempts: number;
}

/** An outbox row's columns with its event's, but the row's own id (each reader names it): every outbox reader's part. */
export function outboxEntryColumnsOf(r: RawRow): Omit<PendingOutboxRow, 'id'> {
  return {
    ...eventColumnsOf(r),
    event_id: int(r, 'event_id'),
    event_key: text(r, 'event_key'),
    kind: text(r, 'kind'),
    payment_url: textOrNull(r, 'payment_url'),
    status_message: textOrNull(r, 'status_message'),
    evidence: textOrNull(r, 'evidence'),
    attempts: int(r, 'attempts'),
    collection_id: intOrNull(r, 'collection_id'),
    merchant_reference: text(r, 'merchant_reference'),
  };
}

const pendingOutboxRowOf = rowMapper<PendingOutboxRow>((r) => ({ ...outboxEntryColumnsOf(r), id: int(r, 'id') }));

/** The oldest `limit` entries still to send, in the order they were written. */
export function pendingOutboxRows(db: ReadDb, limit: number): PendingOutboxRow[] {
  return readStatement(
    db,
    `SELECT o.id, o.event_id, o.event_key, o.kind, o.payment_url, o.status_message, o.evidence, o.attempts,
         e.collection_id, e.merchant_reference, e.internal_reference, e.source, e.status, e.received_at, e.signature,
         e.amount_minor, e.currency, e.payload, e.note, e.actor
       FROM team_outbox o JOIN collection_events e ON e.id = o.event_id
       WHERE o.state = 'pending' ORDER BY o.id LIMIT ?`,
  )
    .all(limit)
    .map(pendingOutboxRowOf);
}

/** The team database has these entries (stored now, or already before: the key is what counts). */
export function markOutboxSent(db: WriteDb, ids: readonly number[], now: number): void {
  if (!ids.length) return;
  writeTransaction(db, () => {
    const st = statement(
      db,
      `UPDATE team_outbox SET state = 'sent', attempts = attempts + 1, reason = NULL, updated_at = ? WHERE id = ? AND state = 'pending'`,
    );
    for (const id of ids) st.run(now, id);
  });
}

/** The team database refused this entry (not an outage): it stays on the desk with why, and is not sent again. */
export function markOutboxRefused(db: WriteDb, id: number, reason: string, now: number): void {
  writeTransaction(db, () => {
    statement(
      db,
      `UPDATE team_outbox SET state = 'refused', attempts = attempts + 1, reason = ?, updated_at = ? WHERE id = ? AND state = 'pending'`,
    ).run(reason, now, id);
  });
}

/** A try that met an outage: the entries stay pending; `reason` says what the last try met. */
export function noteOutboxOutage(db: WriteDb, ids: readonly number[], reason: string, now: number): void {
  if (!ids.length) return;
  writeTransaction(db, () => {
    const st = statement(
      db,
      `UPDATE team_outbox SET attempts = attempts + 1, reason = ?, updated_at = ? WHERE id = ? AND state = 'pending'`,
    );
    for (const id of ids) st.run(reason, now, id);
  });
}

export interface OutboxCounts {
  pending: number;
  refused: number;
}

const outboxCountsOf = rowMapper<OutboxCounts>((r) => ({ pending: int(r, 'pending'), refused: int(r, 'refused') }));

export function outboxCounts(db: ReadDb): OutboxCounts {
  return outboxCountsOf(
    readStatement(
      db,
      `SELECT (SELECT COUNT(*) FROM team_outbox WHERE state = 'pending') AS pending,
              (SELECT COUNT(*) FROM team_outbox WHERE state = 'refused') AS refused`,
    ).get(),
  );
}
