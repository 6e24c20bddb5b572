// One collection as the exception detail shows it: the collection row (every column), its
// reconciliation row, and every event (every column), oldest first.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { StoredEventRecord } from './audit.js';
import { collectionAsStored } from './collection-detail.js';
import { RECONCILIATION_COLUMNS, type ReconciliationRecord } from './exceptions.js';

export function exceptionDetail(
  db: ReadDb,
  collectionId: number,
): {
  collection: Record<string, unknown> | undefined;
  reconciliation: ReconciliationRecord | undefined;
  events: StoredEventRecord[];
} {
  return {
    collection: collectionAsStored(db, collectionId),
    reconciliation: readStatement(
      db,
      `SELECT ${RECONCILIATION_COLUMNS} FROM collections c JOIN reconciliation r ON r.collection_id = c.id WHERE c.id = ?`,
    ).get(collectionId) as ReconciliationRecord | undefined,
    events: readStatement(db, 'SELECT * FROM collection_events WHERE collection_id = ? ORDER BY id').all(
      collectionId,
    ) as StoredEventRecord[],
  };
}
