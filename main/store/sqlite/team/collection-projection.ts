// A collection's projection columns (the ones its events maintain) as the team's bulk copy, a snapshot's
// check and the signature re-check read and write them: folded in memory from the events, written once.
// (The local path, collections/ledger.ts Ledger.append, writes only the columns an event changed.)
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { intOrNull, maybe, rowMapper } from '../../columns.js';
import { projectionColumnsOf, type ProjectionColumns } from '../ledger/projection.js';

/** A collection's projection row: the columns the projection rules read, and the last event id written with them. */
export interface CollectionProjectionRow extends ProjectionColumns {
  last_event_id: number | null;
}

/** The projection of a collection just made from its intent, before any of its events. */
export function intentProjection(createdAt: number, amountMinor: number, currency: string): CollectionProjectionRow {
  return {
    status: 'INTENT',
    status_changed_at: createdAt,
    status_message: null,
    redirect_signature: null,
    amount_minor: amountMinor,
    currency,
    internal_reference: null,
    payment_url: null,
    redirect_status: null,
    callback_status: null,
    flags: 0,
    final_changes: 0,
    last_event_id: null,
  };
}

/**
 * A row's projection in the order of writeProjection's UPDATE (status to final_changes), which is also
 * collections/event-rules.ts PROJECTION_COLUMNS' order: a snapshot's check (team/snapshot/verify.ts) compares
 * these values with the snapshot's columns read in that order.
 */
export function projectionValues(p: CollectionProjectionRow): unknown[] {
  return [
    p.status,
    p.status_changed_at,
    p.internal_reference,
    p.payment_url,
    p.status_message,
    p.last_event_id,
    p.redirect_status,
    p.redirect_signature,
    p.callback_status,
    p.flags,
    p.final_changes,
  ];
}

const collectionProjectionRowOf = rowMapper<CollectionProjectionRow>((r) => ({
  ...projectionColumnsOf(r),
  last_event_id: intOrNull(r, 'last_event_id'),
}));

/** The stored projection of collection `id`, or undefined when there is no such collection. */
export function storedProjection(db: ReadDb, id: number): CollectionProjectionRow | undefined {
  const r = readStatement(
    db,
    `SELECT status, status_changed_at, status_message, redirect_signature, amount_minor, currency, internal_reference,
         payment_url, redirect_status, callback_status, flags, final_changes, last_event_id FROM collections WHERE id = ?`,
  ).get(id);
  return maybe(r, collectionProjectionRowOf);
}

/** Writes collection `id`'s whole projection (call inside the write transaction of its events). */
export function writeProjection(db: WriteDb, id: number, p: CollectionProjectionRow): void {
  statement(
    db,
    `UPDATE collections SET status = ?, status_changed_at = ?, internal_reference = ?, payment_url = ?, status_message = ?,
         last_event_id = ?, redirect_status = ?, redirect_signature = ?, callback_status = ?, flags = ?, final_changes = ?
       WHERE id = ?`,
  ).run(...projectionValues(p), id);
}
