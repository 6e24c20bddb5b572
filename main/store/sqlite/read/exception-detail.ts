// One collection as the exception detail shows it: the collection row (every column), its
// reconciliation row, every event (every column) oldest first, and who resolved it and when.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { StoredEventRecord } from './audit.js';
import { collectionAsStored } from './collection-detail.js';
import { RECONCILIATION_COLUMNS, type ReconciliationRecord } from './exceptions.js';

/** The resolution a reconciliation row names: who, when (ms), the note. */
export interface ResolutionRecord {
  event_id: number;
  actor: string | null;
  at: number;
  note: string | null;
}

export function exceptionDetail(
  db: ReadDb,
  collectionId: number,
): {
  collection: Record<string, unknown> | undefined;
  reconciliation: ReconciliationRecord | undefined;
  events: StoredEventRecord[];
  resolution: ResolutionRecord | undefined;
} {
  const reconciliation = readStatement(
    db,
    `SELECT ${RECONCILIATION_COLUMNS} FROM collections c JOIN reconciliation r ON r.collection_id = c.id WHERE c.id = ?`,
  ).get(collectionId) as ReconciliationRecord | undefined;
  return {
    collection: collectionAsStored(db, collectionId),
    reconciliation,
    events: readStatement(db, 'SELECT * FROM collection_events WHERE collection_id = ? ORDER BY id').all(
      collectionId,
    ) as StoredEventRecord[],
    resolution:
      reconciliation?.resolved_by_event_id == null
        ? undefined
        : resolutionRecord(db, reconciliation.resolved_by_event_id),
  };
}

/** A resolution event's who, when and note. */
function resolutionRecord(db: ReadDb, eventId: number): ResolutionRecord | undefined {
  return readStatement(
    db,
    'SELECT id AS event_id, actor, received_at AS at, note FROM collection_events WHERE id = ?',
  ).get(eventId) as ResolutionRecord | undefined;
}

/**
 * The reference's newest event when it is a resolution (nothing has happened to it since): who, when and
 * their note, with the reference; undefined when its newest event is anything else, or it has none.
 */
export function standingResolutionOf(
  db: ReadDb,
  reference: string,
): (ResolutionRecord & { merchant_reference: string }) | undefined {
  const r = readStatement(
    db,
    `SELECT id AS event_id, kind, actor, received_at AS at, note, merchant_reference FROM collection_events
     WHERE merchant_reference = ? ORDER BY id DESC LIMIT 1`,
  ).get(reference) as (ResolutionRecord & { merchant_reference: string; kind: string }) | undefined;
  if (!r || r.kind !== 'resolution') return undefined;
  const { kind: _kind, ...rest } = r;
  return rest;
}
