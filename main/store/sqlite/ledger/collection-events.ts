// The event log's rows (collection_events): the one insert every appended event goes through
// (collections/ledger.ts Ledger.append decides what is stored and why) and the look-up by dedupe key.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import {
  int,
  intOrNull,
  maybe,
  num,
  rowMapper,
  text,
  textOrNull,
  textValue,
  texts,
  type RawRow,
} from '../../columns.js';

/**
 * A collection_events row as SQLite returns it: the one definition the read models and the rules pick
 * their columns from.
 */
export interface CollectionEventRow {
  id: number;
  collection_id: number | null;
  merchant_reference: string;
  internal_reference: string | null;
  source: string;
  kind: string;
  status: string | null;
  received_at: number;
  signature: string;
  amount_minor: number | null;
  currency: string | null;
  dedupe_key: string | null;
  payload: string | null;
  note: string | null;
  actor: string | null;
}

/** The columns of a collection_events row but its id, collection, reference and key (every reader's part). */
export function eventColumnsOf(
  r: RawRow,
): Omit<CollectionEventRow, 'id' | 'collection_id' | 'merchant_reference' | 'dedupe_key'> {
  return {
    internal_reference: textOrNull(r, 'internal_reference'),
    source: text(r, 'source'),
    kind: text(r, 'kind'),
    status: textOrNull(r, 'status'),
    received_at: num(r, 'received_at'),
    signature: text(r, 'signature'),
    amount_minor: intOrNull(r, 'amount_minor'),
    currency: textOrNull(r, 'currency'),
    payload: textOrNull(r, 'payload'),
    note: textOrNull(r, 'note'),
    actor: textOrNull(r, 'actor'),
  };
}

/** A collection_events row with every column but its dedupe key (SELECT * reads it; nothing shows it). */
export const storedEventOf = rowMapper<Omit<CollectionEventRow, 'dedupe_key'>>((r) => ({
  id: int(r, 'id'),
  collection_id: intOrNull(r, 'collection_id'),
  merchant_reference: text(r, 'merchant_reference'),
  ...eventColumnsOf(r),
}));

/** A collection_events row with every column (SELECT *). */
export const collectionEventRowOf = rowMapper<CollectionEventRow>((r) => ({
  id: int(r, 'id'),
  collection_id: intOrNull(r, 'collection_id'),
  merchant_reference: text(r, 'merchant_reference'),
  ...eventColumnsOf(r),
  dedupe_key: textOrNull(r, 'dedupe_key'),
}));

/** One event as its collection_events row holds it (every column given; null where there is none). */
export interface EventInsert {
  collectionId: number | null;
  merchantReference: string;
  internalReference: string | null;
  source: string;
  kind: string;
  status: string | null;
  receivedAt: number;
  signature: string;
  amountMinor: number | null;
  currency: string | null;
  dedupeKey: string | null;
  payload: string | null;
  note: string | null;
  actor: string | null;
}

const INSERT = `INSERT INTO collection_events (collection_id, merchant_reference, internal_reference, source, kind, status, received_at,
         signature, amount_minor, currency, dedupe_key, payload, note, actor)
       VALUES (@collectionId, @merchantReference, @internalReference, @source, @kind, @status, @receivedAt,
         @signature, @amountMinor, @currency, @dedupeKey, @payload, @note, @actor)
       ON CONFLICT (dedupe_key) DO NOTHING`;

/**
 * Inserts the event; its id, or null when its dedupe key is stored already (ON CONFLICT DO NOTHING, and
 * the no_replace_key trigger): the caller reads the stored one with eventByKey.
 */
export function insertEvent(db: WriteDb, row: EventInsert): number | null {
  const info = statement(db, INSERT).run(row);
  return info.changes === 0 ? null : Number(info.lastInsertRowid);
}

/** The stored event with this dedupe key: its id and the kind it was stored with. */
export function eventByKey(db: ReadDb, dedupeKey: string): { id: number; kind: string } | undefined {
  return maybe(
    readStatement(db, `SELECT id, kind FROM collection_events WHERE dedupe_key = ?`).get(dedupeKey),
    eventKeyOf,
  );
}
const eventKeyOf = rowMapper((r) => ({ id: int(r, 'id'), kind: text(r, 'kind') }));

/**
 * The status of a reference's newest callback-side event (source callback or import, with a status), by this
 * desk's order; undefined when it has none. What callbacks/callback-key.ts judges a callback said again by.
 */
export function latestCallbackStatus(db: ReadDb, reference: string): string | undefined {
  const v: unknown = readStatement(
    db,
    `SELECT status FROM collection_events
      WHERE merchant_reference = ? AND source IN ('callback', 'import') AND status IS NOT NULL
      ORDER BY id DESC LIMIT 1`,
    'pluck',
  ).get(reference);
  return v === undefined ? undefined : textValue(v, 'status');
}

/** Which of the dedupe keys of a JSON array of texts are stored already (one statement for a whole set). */
export function storedKeysIn(db: ReadDb, keysJson: string): string[] {
  return texts(
    readStatement(
      db,
      'SELECT dedupe_key FROM collection_events WHERE dedupe_key IN (SELECT value FROM json_each(?))',
      'pluck',
    ).all(keysJson),
    'dedupe_key',
  );
}
