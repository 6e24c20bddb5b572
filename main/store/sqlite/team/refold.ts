// The statements of a team desk's refold (team/sync/refold.ts): the references marked to be folded again,
// a stored event as the comparison with its record copy reads it, and the rewrite of one reference's events
// in the record's order. collection_events is append-only (migration 1's triggers): the rewrite is the one
// other write, besides a snapshot's verdict correction (event-verdicts.ts), that lifts them, and only inside
// its own write transaction.
import type { Db, ReadDb, WriteDb } from '../connection.js';
import { collectionEventsNoDelete, collectionEventsNoUpdate } from '../migrations/001-initial.js';
import { readStatement, statement } from '../statements.js';
import {
  collectionEventRowOf,
  insertEvent,
  type CollectionEventRow,
  type EventInsert,
} from '../ledger/collection-events.js';
import { int, maybe, rowMapper, textOrNull, texts } from '../../columns.js';
import type { IntentColumns } from '../ledger/intent-rows.js';

/** Marks `reference` to be folded again (inside the caller's write transaction). */
export function markRefold(db: WriteDb, reference: string, now: number): void {
  statement(db, 'INSERT INTO team_refold (merchant_reference, marked_at) VALUES (?, ?) ON CONFLICT DO NOTHING').run(
    reference,
    now,
  );
}

/** Up to `limit` references waiting to be folded again, oldest mark first. */
export function refoldQueue(db: ReadDb, limit: number): string[] {
  return texts(
    readStatement(
      db,
      'SELECT merchant_reference FROM team_refold ORDER BY marked_at, merchant_reference LIMIT ?',
      'pluck',
    ).all(limit),
    'merchant_reference',
  );
}

export function clearRefold(db: WriteDb, reference: string): void {
  statement(db, 'DELETE FROM team_refold WHERE merchant_reference = ?').run(reference);
}

/** The stored event with this dedupe key, every column. */
export function storedEventByKey(db: ReadDb, dedupeKey: string): CollectionEventRow | undefined {
  return maybe(
    readStatement(db, 'SELECT * FROM collection_events WHERE dedupe_key = ?').get(dedupeKey),
    collectionEventRowOf,
  );
}

/**
 * Whether the reference has an event stored after event `id` that is not one of this desk's own waiting in
 * (or sent from) its outbox: one applied from the record, or recorded there first.
 */
export function hasPulledEventAfter(db: ReadDb, reference: string, id: number): boolean {
  return (
    readStatement(
      db,
      `SELECT EXISTS (SELECT 1 FROM collection_events e WHERE e.merchant_reference = ? AND e.id > ?
                        AND NOT EXISTS (SELECT 1 FROM team_outbox o WHERE o.event_id = e.id))`,
      'pluck',
    ).get(reference, id) === 1
  );
}

/** One of the reference's stored events with what its outbox row (if any) says of it. */
export interface LocalEventRow extends CollectionEventRow {
  /** The outbox row's state: 'pending' | 'sent' | 'refused', or null when the event has none. */
  outbox_state: string | null;
  outbox_payment_url: string | null;
  outbox_status_message: string | null;
}

const localEventRowOf = rowMapper<LocalEventRow>((r) => ({
  ...collectionEventRowOf(r),
  outbox_state: textOrNull(r, 'outbox_state'),
  outbox_payment_url: textOrNull(r, 'outbox_payment_url'),
  outbox_status_message: textOrNull(r, 'outbox_status_message'),
}));

/** A stored event's id and key (what a rewrite keeps of the rows it replaces). */
export const eventIdKeyOf = rowMapper((r) => ({ id: int(r, 'id'), dedupe_key: textOrNull(r, 'dedupe_key') }));

/** Every stored event of the reference, in the order stored, with its outbox row's state and projection fields. */
export function localEventsOf(db: ReadDb, reference: string): LocalEventRow[] {
  return readStatement(
    db,
    `SELECT e.*, o.state AS outbox_state, o.payment_url AS outbox_payment_url, o.status_message AS outbox_status_message
     FROM collection_events e LEFT JOIN team_outbox o ON o.event_id = e.id
     WHERE e.merchant_reference = ? ORDER BY e.id`,
  )
    .all(reference)
    .map(localEventRowOf);
}

/**
 * Replaces the reference's stored events with `rows`, stored anew in this order (new ids, after every id
 * stored so far), and points each outbox row at its event's new id. Inside the caller's write transaction;
 * returns the new id of each row, in order.
 */
export function rewriteEventsOf(db: Db, reference: string, rows: readonly EventInsert[]): number[] {
  if (!db.inTransaction) throw new Error('a reference is rewritten only inside a write transaction');
  const before = readStatement(db, 'SELECT id, dedupe_key FROM collection_events WHERE merchant_reference = ?')
    .all(reference)
    .map(eventIdKeyOf);
  const ids: number[] = [];
  // The outbox points at the events being stored anew: checked at commit, when each points at its new id.
  db.pragma('defer_foreign_keys = ON');
  db.exec('DROP TRIGGER collection_events_no_update');
  db.exec('DROP TRIGGER collection_events_no_delete');
  try {
    statement(db, 'DELETE FROM collection_events WHERE merchant_reference = ?').run(reference);
    const outbox = statement(db, 'UPDATE team_outbox SET event_id = ? WHERE event_id = ?');
    const oldIdOf = new Map<string, number>();
    for (const b of before) if (b.dedupe_key !== null) oldIdOf.set(b.dedupe_key, b.id);
    for (const row of rows) {
      const id = insertEvent(db, row);
      if (id === null) throw new Error(`the event ${row.dedupeKey ?? '(no key)'} of ${reference} is stored twice`);
      ids.push(id);
      const old = row.dedupeKey === null ? undefined : oldIdOf.get(row.dedupeKey);
      if (old !== undefined) outbox.run(id, old);
    }
  } finally {
    db.exec(collectionEventsNoUpdate);
    db.exec(collectionEventsNoDelete);
  }
  return ids;
}

/** Sets a collection's intent columns (as the team record's intent event has them), inside the caller's transaction. */
export function writeIntentColumns(db: WriteDb, id: number, c: IntentColumns): void {
  statement(
    db,
    `UPDATE collections SET created_at = ?, amount_minor = ?, currency = ?, description = ?, customer_name = ?,
         customer_email = ?, charge_customer = ?, allow_final_status_change = ?, operator = ?, provider_code = ?,
         redirect_url = ?, card_brand = ?, card_last4 = ?
       WHERE id = ?`,
  ).run(
    c.createdAt,
    c.amountMinor,
    c.currency,
    c.description,
    c.customerName,
    c.customerEmail,
    c.chargeCustomer ? 1 : 0,
    c.allowFinalStatusChange ? 1 : 0,
    c.operator,
    c.providerCode,
    c.redirectUrl,
    c.cardBrand,
    c.cardLast4,
    id,
  );
}
