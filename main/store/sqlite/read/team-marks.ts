// What a team desk marks on a collection besides its status: events the team database refused (team
// outbox, store migration 015) and signed events taken from the team's snapshot whose signatures this
// desk has not re-checked yet (store migration 018). Read apart from the page's statement, so its plan
// stays the index's.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { int, ints, maybe, rowMapper } from '../../columns.js';

const countByIdOf = rowMapper((r): [number, number] => [int(r, 'id'), int(r, 'n')]);
const rangeOf = rowMapper((r) => ({ lo: int(r, 'lo'), hi: int(r, 'hi') }));

/** The sources whose events carry a signature the desk checks. */
export const SIGNED_SOURCES = ['callback', 'import', 'redirect'] as const;
const SIGNED = `(${SIGNED_SOURCES.map((s) => `'${s}'`).join(', ')})`;

/**
 * Events the team database refused, by collection id. It walks the refused outbox rows only (a partial
 * index; normally there are none).
 */
export function refusedByCollection(db: ReadDb): Map<number, number> {
  const rows = readStatement(
    db,
    `SELECT e.collection_id AS id, COUNT(*) AS n FROM team_outbox o JOIN collection_events e ON e.id = o.event_id
     WHERE o.state = 'refused' AND e.collection_id IS NOT NULL GROUP BY e.collection_id`,
  ).all({});
  return new Map(rows.map(countByIdOf));
}

/** The events a new team desk took from a snapshot and has not re-checked (ids lo < id <= hi), or null. */
export function uncheckedRange(db: ReadDb): { lo: number; hi: number } | null {
  const r = maybe(
    readStatement(
      db,
      'SELECT checked_event_id AS lo, upto_event_id AS hi FROM team_signature_check WHERE one_row = 1',
    ).get({}),
    rangeOf,
  );
  return r && r.lo < r.hi ? r : null;
}

/** Whether a collection has a signed event in the unchecked range. */
export function restsOnUncheckedSignature(db: ReadDb, collectionId: number): boolean {
  const range = uncheckedRange(db);
  return (
    range !== null &&
    readStatement(
      db,
      `SELECT 1 FROM collection_events WHERE collection_id = @id AND id > @lo AND id <= @hi AND source IN ${SIGNED} LIMIT 1`,
    ).get({ id: collectionId, ...range }) !== undefined
  );
}

/** Which of `ids` have a signed event in the unchecked range. */
export function checkingSignatures(db: ReadDb, ids: readonly number[]): Set<number> {
  const range = uncheckedRange(db);
  if (!range || !ids.length) return new Set();
  const rows = readStatement(
    db,
    `SELECT DISTINCT collection_id FROM collection_events
       WHERE collection_id IN (SELECT value FROM json_each(?)) AND id > ? AND id <= ? AND source IN ${SIGNED}`,
    'pluck',
  ).all(JSON.stringify(ids), range.lo, range.hi);
  return new Set(ints(rows, 'collection_id'));
}
