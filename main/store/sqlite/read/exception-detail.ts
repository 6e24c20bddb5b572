// One collection as the exception detail shows it: the collection row (every column), its
// reconciliation row, every event (every column) oldest first, and who resolved it and when.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { StoredEventRecord } from './audit.js';
import { collectionAsStored, type StoredCollection } from './collection-detail.js';
import { RECONCILIATION_COLUMNS, reconciliationRecordOf, type ReconciliationRecord } from './exceptions.js';
import { storedEventOf } from '../ledger/collection-events.js';
import { int, maybe, num, rowMapper, text, textOrNull } from '../../columns.js';

/** The resolution a reconciliation row names: who, when (ms), the note. */
export interface ResolutionRecord {
  event_id: number;
  actor: string | null;
  at: number;
  note: string | null;
}

const resolutionOf = rowMapper<ResolutionRecord>((r) => ({
  event_id: int(r, 'event_id'),
  actor: textOrNull(r, 'actor'),
  at: num(r, 'at'),
  note: textOrNull(r, 'note'),
}));
const newestEventOf = rowMapper((r) => ({
  ...resolutionOf(r),
  kind: text(r, 'kind'),
  merchant_reference: text(r, 'merchant_reference'),
}));

export function exceptionDetail(
  db: ReadDb,
  collectionId: number,
): {
  collection: StoredCollection | undefined;
  reconciliation: ReconciliationRecord | undefined;
  events: StoredEventRecord[];
  resolution: ResolutionRecord | undefined;
} {
  const reconciliation = maybe(
    readStatement(
      db,
      `SELECT ${RECONCILIATION_COLUMNS} FROM collections c JOIN reconciliation r ON r.collection_id = c.id WHERE c.id = ?`,
    ).get(collectionId),
    reconciliationRecordOf,
  );
  return {
    collection: collectionAsStored(db, collectionId),
    reconciliation,
    events: readStatement(db, 'SELECT * FROM collection_events WHERE collection_id = ? ORDER BY id')
      .all(collectionId)
      .map(storedEventOf),
    resolution:
      reconciliation?.resolved_by_event_id == null
        ? undefined
        : resolutionRecord(db, reconciliation.resolved_by_event_id),
  };
}

/** A resolution event's who, when and note. */
function resolutionRecord(db: ReadDb, eventId: number): ResolutionRecord | undefined {
  return maybe(
    readStatement(db, 'SELECT id AS event_id, actor, received_at AS at, note FROM collection_events WHERE id = ?').get(
      eventId,
    ),
    resolutionOf,
  );
}

/**
 * The reference's newest event when it is a resolution (nothing has happened to it since): who, when and
 * their note, with the reference; undefined when its newest event is anything else, or it has none.
 */
export function standingResolutionOf(
  db: ReadDb,
  reference: string,
): (ResolutionRecord & { merchant_reference: string }) | undefined {
  const r = maybe(
    readStatement(
      db,
      `SELECT id AS event_id, kind, actor, received_at AS at, note, merchant_reference FROM collection_events
     WHERE merchant_reference = ? ORDER BY id DESC LIMIT 1`,
    ).get(reference),
    newestEventOf,
  );
  if (!r || r.kind !== 'resolution') return undefined;
  const { kind: _kind, ...rest } = r;
  return rest;
}
