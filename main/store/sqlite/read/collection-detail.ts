// One collection and its whole timeline (oldest first), as stored: the payment's detail screen, the
// charge flow's re-read after each step, and the redirect handler. collections/query.ts maps them.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { eventColumnsOf, type CollectionEventRow } from '../ledger/collection-events.js';
import { COLLECTION_COLUMNS, collectionRecordOf, type CollectionRecord } from './collections-page.js';
import { int, intOrNull, maybe, rowMapper, text, textOrNull } from '../../columns.js';

/** A collection_events row as the timeline reads it. */
export interface EventRecord extends Omit<CollectionEventRow, 'collection_id' | 'merchant_reference' | 'dedupe_key'> {
  /** The team database's reason when it refused this event, else null. */
  team_refused: string | null;
}

const EVENT_COLUMNS =
  'id, source, kind, status, received_at, signature, internal_reference, amount_minor, currency, payload, note, actor, ' +
  // A refusal by the team database stays on the desk with its reason (team outbox, store migration 015).
  "(SELECT o.reason FROM team_outbox o WHERE o.event_id = collection_events.id AND o.state = 'refused') AS team_refused";

const eventRecordOf = rowMapper<EventRecord>((r) => ({
  id: int(r, 'id'),
  ...eventColumnsOf(r),
  team_refused: textOrNull(r, 'team_refused'),
}));

/** A collection by id or by merchant reference, or undefined. */
export function collectionRecord(db: ReadDb, idOrReference: number | string): CollectionRecord | undefined {
  const by = typeof idOrReference === 'number' ? 'id' : 'merchant_reference';
  return maybe(
    readStatement(db, `SELECT ${COLLECTION_COLUMNS} FROM collections WHERE ${by} = ?`).get(idOrReference),
    collectionRecordOf,
  );
}

/** A collection's events, oldest first. */
export function collectionTimeline(db: ReadDb, collectionId: number): EventRecord[] {
  return readStatement(db, `SELECT ${EVENT_COLUMNS} FROM collection_events WHERE collection_id = ? ORDER BY id`)
    .all(collectionId)
    .map(eventRecordOf);
}

/** A collections row with every column (migrations 001, 002). A type, not an interface: it is a record too. */
export type StoredCollection = CollectionRecord & {
  redirect_url: string;
  last_event_id: number | null;
};

const storedCollectionOf = rowMapper<StoredCollection>((r) => ({
  ...collectionRecordOf(r),
  redirect_url: text(r, 'redirect_url'),
  last_event_id: intOrNull(r, 'last_event_id'),
}));

/** A collection row with every column, as stored (the charge's initialize request, the exception detail). */
export function collectionAsStored(db: ReadDb, collectionId: number): StoredCollection | undefined {
  return maybe(
    readStatement(db, `SELECT ${COLLECTION_COLUMNS}, redirect_url, last_event_id FROM collections WHERE id = ?`).get(
      collectionId,
    ),
    storedCollectionOf,
  );
}
