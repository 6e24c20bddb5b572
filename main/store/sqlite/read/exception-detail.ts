// One collection as the exception detail shows it: the collection row (every column), its
// reconciliation row, every event (every column) oldest first in the team's order, and who resolved
// it and when (the team database's time once the desk knows it).
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { StoredEventRecord } from './audit.js';
import { collectionAsStored } from './collection-detail.js';
import { RECONCILIATION_COLUMNS, type ReconciliationRecord } from './exceptions.js';
import { teamOrder, teamSeqJoin } from '../team/event-order.js';

/** The resolution a reconciliation row names: who, when (ms; the database's time when known), the note. */
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
    events: readStatement(
      db,
      `SELECT e.* FROM collection_events e ${teamSeqJoin('e', 's')} WHERE e.collection_id = ? ORDER BY ${teamOrder('e', 's')}`,
    ).all(collectionId) as StoredEventRecord[],
    resolution:
      reconciliation?.resolved_by_event_id == null
        ? undefined
        : resolutionRecord(db, reconciliation.resolved_by_event_id),
  };
}

/** A resolution event's who, when and note. */
export function resolutionRecord(db: ReadDb, eventId: number): ResolutionRecord | undefined {
  return readStatement(
    db,
    `SELECT e.id AS event_id, e.actor, COALESCE(s.recorded_at, e.received_at) AS at, e.note
     FROM collection_events e ${teamSeqJoin('e', 's')} WHERE e.id = ?`,
  ).get(eventId) as ResolutionRecord | undefined;
}
