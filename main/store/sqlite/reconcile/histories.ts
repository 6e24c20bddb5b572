// What the rules (main/reconcile/classify.ts) read of a collection: its intent's terms and every event
// of its history, for one collection or a batch of them. Each statement is prepared once per connection
// (the incremental path runs them for every appended event); a batch's ids go in as one JSON array, so
// one statement serves any count.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { CollectionEventRow } from '../ledger/collection-events.js';
import { int, intOrNull, intOrNullValue, maybe, num, rowMapper, text, textOrNull } from '../../columns.js';

/** One event as the rules read it. */
export type ReconEvent = Pick<
  CollectionEventRow,
  'id' | 'source' | 'kind' | 'status' | 'received_at' | 'signature' | 'amount_minor' | 'currency' | 'payload' | 'note'
>;

/** The intent's terms the rules compare every report with. */
export interface ReconCollection {
  id: number;
  created_at: number;
  amount_minor: number;
  currency: string;
}

const reconEventOf = rowMapper<ReconEvent>((r) => ({
  id: int(r, 'id'),
  source: text(r, 'source'),
  kind: text(r, 'kind'),
  status: textOrNull(r, 'status'),
  received_at: num(r, 'received_at'),
  signature: text(r, 'signature'),
  amount_minor: intOrNull(r, 'amount_minor'),
  currency: textOrNull(r, 'currency'),
  payload: textOrNull(r, 'payload'),
  note: textOrNull(r, 'note'),
}));
const reconEventInOf = rowMapper<ReconEvent & { collection_id: number }>((r) => ({
  collection_id: int(r, 'collection_id'),
  ...reconEventOf(r),
}));
const reconCollectionOf = rowMapper<ReconCollection>((r) => ({
  id: int(r, 'id'),
  created_at: num(r, 'created_at'),
  amount_minor: int(r, 'amount_minor'),
  currency: text(r, 'currency'),
}));
const collectionReferenceOf = rowMapper((r) => ({
  id: int(r, 'id'),
  merchant_reference: text(r, 'merchant_reference'),
}));

const EVENT_COLUMNS = 'id, source, kind, status, received_at, signature, amount_minor, currency, payload, note';
/**
 * A team desk's own event the team database refused stays in its timeline but is no fact: the rules never
 * read it (a desk never shows as fact what PostgreSQL refused). Solo desks have no outbox: nothing is left out.
 */
const NOT_REFUSED =
  "NOT EXISTS (SELECT 1 FROM team_outbox o WHERE o.event_id = collection_events.id AND o.state = 'refused')";
const IDS = 'SELECT value FROM json_each(?)';

/** The collection an event belongs to; null for an orphan, undefined for no such event. */
export function eventCollectionId(db: ReadDb, eventId: number): number | null | undefined {
  const id = readStatement(db, 'SELECT collection_id FROM collection_events WHERE id = ?', 'pluck').get(eventId);
  return id === undefined ? undefined : intOrNullValue(id, 'collection_id');
}

export function reconCollection(db: ReadDb, id: number): ReconCollection | undefined {
  return maybe(
    readStatement(db, 'SELECT id, created_at, amount_minor, currency FROM collections WHERE id = ?').get(id),
    reconCollectionOf,
  );
}

/** Every event of one collection, oldest first. */
export function reconEvents(db: ReadDb, collectionId: number): ReconEvent[] {
  return readStatement(
    db,
    `SELECT ${EVENT_COLUMNS} FROM collection_events WHERE collection_id = ? AND ${NOT_REFUSED} ORDER BY id`,
  )
    .all(collectionId)
    .map(reconEventOf);
}

/** The collections of a JSON array of ids, by id. */
export function reconCollectionsIn(db: ReadDb, idsJson: string): ReconCollection[] {
  return readStatement(
    db,
    `SELECT id, created_at, amount_minor, currency FROM collections WHERE id IN (${IDS}) ORDER BY id`,
  )
    .all(idsJson)
    .map(reconCollectionOf);
}

/** Every event of the collections of a JSON array of ids, by collection then id. */
export function reconEventsIn(db: ReadDb, idsJson: string): (ReconEvent & { collection_id: number })[] {
  return readStatement(
    db,
    `SELECT collection_id, ${EVENT_COLUMNS} FROM collection_events WHERE collection_id IN (${IDS}) AND ${NOT_REFUSED}
     ORDER BY collection_id, id`,
  )
    .all(idsJson)
    .map(reconEventInOf);
}

/** A collection's id and merchant reference (what a resolution names), or undefined for no such collection. */
export function collectionReference(db: ReadDb, id: number): { id: number; merchant_reference: string } | undefined {
  return maybe(
    readStatement(db, 'SELECT id, merchant_reference FROM collections WHERE id = ?').get(id),
    collectionReferenceOf,
  );
}
