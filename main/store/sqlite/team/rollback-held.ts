// What a desk holds when the record went back in time (store migration 20; team/sync/rollback-candidates.ts
// and rollback-rebase.ts say what and why): its events as candidates for what the record lost, the outbox
// rows that must survive a re-base, and a collection's intent columns as stored. Exported from rollback.ts.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { outboxEntryColumnsOf } from '../ledger/outbox.js';
import { collectionEventRowOf, type CollectionEventRow } from '../ledger/collection-events.js';
import type { CollectionRecord } from '../read/collection-record.js';
import { int, intValue, maybe, num, oneOf, rowMapper, text, textOrNull, texts } from '../../columns.js';

// --- What a desk holds, as candidates for what the record lost --------------------------------------

/** A local event with the columns a witness needs (its collection's intent columns for an intent). */
export type HeldEventRow = CollectionEventRow;

const heldKeyOf = rowMapper((r) => ({
  id: int(r, 'id'),
  dedupe_key: text(r, 'dedupe_key'),
  merchant_reference: text(r, 'merchant_reference'),
}));

/** The local id of the event with this key, if this desk holds it. */
export function localIdOfKey(db: ReadDb, key: string): number | undefined {
  const id = readStatement(db, 'SELECT id FROM collection_events WHERE dedupe_key = ?', 'pluck').get(key);
  return id === undefined ? undefined : intValue(id, 'id');
}

/** The keys of local events after id `afterId`, `limit` at a time, in id order (the rows are read when needed). */
export function heldKeysAfter(
  db: ReadDb,
  afterId: number,
  limit: number,
): { id: number; dedupe_key: string; merchant_reference: string }[] {
  return readStatement(
    db,
    'SELECT id, dedupe_key, merchant_reference FROM collection_events WHERE id > ? AND dedupe_key IS NOT NULL ORDER BY id LIMIT ?',
  )
    .all(afterId, limit)
    .map(heldKeyOf);
}

/** Local events written by `actor` at or after `since` (this desk's own: its login's). */
export function heldEventsOf(db: ReadDb, actor: string, since: number): HeldEventRow[] {
  return readStatement(
    db,
    'SELECT * FROM collection_events WHERE actor = ? AND received_at >= ? AND dedupe_key IS NOT NULL ORDER BY id',
  )
    .all(actor, since)
    .map(collectionEventRowOf);
}

/** The local events of these keys. */
export function heldEventsByKeys(db: ReadDb, keys: readonly string[]): HeldEventRow[] {
  const out: HeldEventRow[] = [];
  const st = readStatement(
    db,
    'SELECT * FROM collection_events WHERE dedupe_key IN (SELECT value FROM json_each(?)) ORDER BY id',
  );
  for (let i = 0; i < keys.length; i += 500)
    out.push(...st.all(JSON.stringify(keys.slice(i, i + 500))).map(collectionEventRowOf));
  return out;
}

/** An outbox row with its event: what a desk sends (or sent) the team of its own. */
export interface OwnOutboxRow extends Omit<CollectionEventRow, 'id' | 'kind' | 'dedupe_key'> {
  outbox_id: number;
  event_id: number;
  event_key: string;
  kind: string;
  payment_url: string | null;
  status_message: string | null;
  evidence: string | null;
  state: 'pending' | 'sent' | 'refused';
  reason: string | null;
  attempts: number;
  created_at: number;
  updated_at: number;
}

const OUTBOX_STATES: readonly OwnOutboxRow['state'][] = ['pending', 'sent', 'refused'];
const ownOutboxRowOf = rowMapper<OwnOutboxRow>((r) => ({
  ...outboxEntryColumnsOf(r),
  outbox_id: int(r, 'outbox_id'),
  state: oneOf(r, 'state', OUTBOX_STATES),
  reason: textOrNull(r, 'reason'),
  created_at: num(r, 'created_at'),
  updated_at: num(r, 'updated_at'),
}));

const OUTBOX_ROWS = `SELECT o.id AS outbox_id, o.event_id, o.event_key, o.kind, o.payment_url, o.status_message, o.evidence,
         o.state, o.reason, o.attempts, o.created_at, o.updated_at,
         e.collection_id, e.merchant_reference, e.internal_reference, e.source, e.status, e.received_at, e.signature,
         e.amount_minor, e.currency, e.payload, e.note, e.actor
       FROM team_outbox o JOIN collection_events e ON e.id = o.event_id`;

/** Outbox rows the team database acknowledged at or after `since` (sent; kept until then as a witness's). */
export function sentOutboxSince(db: ReadDb, since: number): OwnOutboxRow[] {
  return readStatement(db, `${OUTBOX_ROWS} WHERE o.state = 'sent' AND o.updated_at >= ? ORDER BY o.id`)
    .all(since)
    .map(ownOutboxRowOf);
}

/** The keys of outbox rows not (or never to be) in the team record: pending or refused. */
export function unsentOutboxKeys(db: ReadDb): Set<string> {
  return new Set(
    texts(
      readStatement(db, "SELECT event_key FROM team_outbox WHERE state IN ('pending', 'refused')", 'pluck').all(),
      'event_key',
    ),
  );
}

/** The outbox rows still to send or refused, of events of these references (they must outlive the re-base). */
export function unsentOutboxOf(db: ReadDb, refs: readonly string[]): OwnOutboxRow[] {
  const out: OwnOutboxRow[] = [];
  const st = readStatement(
    db,
    `${OUTBOX_ROWS} WHERE o.state IN ('pending', 'refused') AND e.merchant_reference IN (SELECT value FROM json_each(?))
     ORDER BY o.id`,
  );
  for (let i = 0; i < refs.length; i += 500)
    out.push(...st.all(JSON.stringify(refs.slice(i, i + 500))).map(ownOutboxRowOf));
  return out;
}

/**
 * A collection's intent columns as stored: the screens' row type's intent columns and the redirect URL. The
 * mapper below builds them in the SELECT's order, which the event's payload keeps (a type cannot say that).
 */
export type StoredIntentColumns = Pick<
  CollectionRecord,
  | 'merchant_reference'
  | 'created_at'
  | 'amount_minor'
  | 'currency'
  | 'description'
  | 'customer_name'
  | 'customer_email'
  | 'charge_customer'
  | 'allow_final_status_change'
  | 'operator'
  | 'provider_code'
  | 'card_brand'
  | 'card_last4'
> & { redirect_url: string };
const storedIntentColumnsOf = rowMapper<StoredIntentColumns>((r) => ({
  merchant_reference: text(r, 'merchant_reference'),
  created_at: num(r, 'created_at'),
  amount_minor: int(r, 'amount_minor'),
  currency: text(r, 'currency'),
  description: text(r, 'description'),
  customer_name: textOrNull(r, 'customer_name'),
  customer_email: textOrNull(r, 'customer_email'),
  charge_customer: int(r, 'charge_customer'),
  allow_final_status_change: int(r, 'allow_final_status_change'),
  operator: text(r, 'operator'),
  provider_code: textOrNull(r, 'provider_code'),
  redirect_url: text(r, 'redirect_url'),
  card_brand: textOrNull(r, 'card_brand'),
  card_last4: textOrNull(r, 'card_last4'),
}));

/** The intent columns of a collection, for putting back this desk's own intent. */
export function intentColumnsOf(db: ReadDb, reference: string): StoredIntentColumns | undefined {
  const r = readStatement(
    db,
    `SELECT merchant_reference, created_at, amount_minor, currency, description, customer_name, customer_email,
            charge_customer, allow_final_status_change, operator, provider_code, redirect_url, card_brand, card_last4
     FROM collections WHERE merchant_reference = ?`,
  ).get(reference);
  return maybe(r, storedIntentColumnsOf);
}
