// What the resolve command (reconcile/resolve.ts) reads inside its write transaction, besides the orphan
// view (read/orphans.ts): the event a team desk already stored under the resolution's key, and the
// collection's internal reference the resolution event carries. The event itself is appended by the
// ledger (collections/ledger.ts).
import type { ReadDb } from './connection.js';
import { readStatement } from './statements.js';
import { textOrNullValue } from '../columns.js';

/** The id of the event stored under `dedupeKey`, if any. */
export function eventIdByDedupeKey(db: ReadDb, dedupeKey: string): number | undefined {
  const id = readStatement(db, 'SELECT id FROM collection_events WHERE dedupe_key = ?', 'pluck').get(dedupeKey);
  return typeof id === 'number' ? id : undefined;
}

/** A collection's internal reference (null until the service gave one). */
export function internalReferenceOf(db: ReadDb, collectionId: number): string | null {
  const v = readStatement(db, 'SELECT internal_reference FROM collections WHERE id = ?', 'pluck').get(collectionId);
  return v === undefined ? null : textOrNullValue(v, 'internal_reference');
}
