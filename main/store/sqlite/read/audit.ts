// The audit list: every stored event and resolution, newest first, filtered.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { storedEventOf, type CollectionEventRow } from '../ledger/collection-events.js';
import { intValue } from '../../columns.js';
import { addRange, newTerms, whereOf } from './filters.js';

export interface AuditQuery {
  collectionId?: number | undefined;
  reference?: string | undefined;
  source?: string | undefined;
  kind?: string | undefined;
  /** received_at range, ms (inclusive from, exclusive to). */
  from?: number | undefined;
  to?: number | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

/** A collection_events row as stored (every column but the dedupe key). */
export type StoredEventRecord = Omit<CollectionEventRow, 'dedupe_key'>;

export function auditPage(db: ReadDb, q: AuditQuery = {}): { rows: StoredEventRecord[]; total: number } {
  const t = newTerms();
  if (q.collectionId !== undefined) {
    t.where.push('collection_id = @collectionId');
    t.params.collectionId = q.collectionId;
  }
  if (q.reference) {
    t.where.push('merchant_reference = @reference');
    t.params.reference = q.reference;
  }
  if (q.source) {
    t.where.push('source = @source');
    t.params.source = q.source;
  }
  if (q.kind) {
    t.where.push('kind = @kind');
    t.params.kind = q.kind;
  }
  addRange(t, 'received_at', q);
  const w = whereOf(t.where);
  const total = intValue(
    readStatement(db, `SELECT COUNT(*) FROM collection_events ${w}`, 'pluck').get(t.params),
    'count(*)',
  );
  const rows = readStatement(db, `SELECT * FROM collection_events ${w} ORDER BY id DESC LIMIT @limit OFFSET @offset`)
    .all({
      ...t.params,
      limit: Math.min(Math.max(q.limit ?? 100, 1), 1000),
      offset: Math.max(q.offset ?? 0, 0),
    })
    .map(storedEventOf);
  return { rows, total };
}
