// What the rules (main/reconcile/classify.ts) read of a collection: its intent's terms and every event
// of its history, for one collection or a batch of them. Each statement is prepared once per connection
// (the incremental path runs them for every appended event); a batch's ids go in as one JSON array, so
// one statement serves any count.
import type { Db } from '../connection.js';
import { statement } from '../statements.js';
import type { CollectionEventRow } from '../ledger/collection-events.js';

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

const EVENT_COLUMNS = 'id, source, kind, status, received_at, signature, amount_minor, currency, payload, note';
/**
 * A team desk's own event the team database refused stays in its timeline but is no fact: the rules never
 * read it (a desk never shows as fact what PostgreSQL refused). Solo desks have no outbox: nothing is left out.
 */
const NOT_REFUSED =
  "NOT EXISTS (SELECT 1 FROM team_outbox o WHERE o.event_id = collection_events.id AND o.state = 'refused')";
const IDS = 'SELECT value FROM json_each(?)';

/** The collection an event belongs to; null for an orphan, undefined for no such event. */
export function eventCollectionId(db: Db, eventId: number): number | null | undefined {
  return statement(db, 'SELECT collection_id FROM collection_events WHERE id = ?', 'pluck').get(eventId) as
    number | null | undefined;
}

export function reconCollection(db: Db, id: number): ReconCollection | undefined {
  return statement(db, 'SELECT id, created_at, amount_minor, currency FROM collections WHERE id = ?').get(id) as
    ReconCollection | undefined;
}

/** Every event of one collection, oldest first. */
export function reconEvents(db: Db, collectionId: number): ReconEvent[] {
  return statement(
    db,
    `SELECT ${EVENT_COLUMNS} FROM collection_events WHERE collection_id = ? AND ${NOT_REFUSED} ORDER BY id`,
  ).all(collectionId) as ReconEvent[];
}

/** The collections of a JSON array of ids, by id. */
export function reconCollectionsIn(db: Db, idsJson: string): ReconCollection[] {
  return statement(
    db,
    `SELECT id, created_at, amount_minor, currency FROM collections WHERE id IN (${IDS}) ORDER BY id`,
  ).all(idsJson) as ReconCollection[];
}

/** Every event of the collections of a JSON array of ids, by collection then id. */
export function reconEventsIn(db: Db, idsJson: string): (ReconEvent & { collection_id: number })[] {
  return statement(
    db,
    `SELECT collection_id, ${EVENT_COLUMNS} FROM collection_events WHERE collection_id IN (${IDS}) AND ${NOT_REFUSED}
     ORDER BY collection_id, id`,
  ).all(idsJson) as (ReconEvent & { collection_id: number })[];
}

/** A collection's id and merchant reference (what a resolution names), or undefined for no such collection. */
export function collectionReference(db: Db, id: number): { id: number; merchant_reference: string } | undefined {
  return statement(db, 'SELECT id, merchant_reference FROM collections WHERE id = ?').get(id) as
    { id: number; merchant_reference: string } | undefined;
}
