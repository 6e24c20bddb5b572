// What applying pulled team events writes and reads beside the events themselves (team/sync/apply.ts,
// app/team-notices.ts): the operator of this desk's own intent, and the status of the collections a
// batch touched, for the screens showing them.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { int, rowMapper, text, textValue } from '../../columns.js';

/** A collection a pulled batch created or gave a new event, with its status after it. */
export interface CollectionStatusRow {
  id: number;
  reference: string;
  status: string;
}
const collectionStatusRowOf = rowMapper<CollectionStatusRow>((r) => ({
  id: int(r, 'id'),
  reference: text(r, 'reference'),
  status: text(r, 'status'),
}));

/**
 * This desk's own intent, stored before PostgreSQL had it, takes the database's actor as its operator.
 * Returns whether the row changed.
 */
export function setIntentOperator(db: WriteDb, collectionId: number, actor: string): boolean {
  return (
    statement(db, 'UPDATE collections SET operator = ? WHERE id = ? AND operator IS NOT ?').run(
      actor,
      collectionId,
      actor,
    ).changes > 0
  );
}

/** The id, reference and status of each of the collections `ids` (those that exist), 500 ids a statement. */
export function collectionStatuses(db: ReadDb, ids: readonly number[]): CollectionStatusRow[] {
  const out: CollectionStatusRow[] = [];
  const st = readStatement(
    db,
    'SELECT id, merchant_reference AS reference, status FROM collections WHERE id IN (SELECT value FROM json_each(?))',
  );
  for (let i = 0; i < ids.length; i += 500)
    out.push(...st.all(JSON.stringify(ids.slice(i, i + 500))).map(collectionStatusRowOf));
  return out;
}

/** A collection's status, or undefined when there is no such collection. */
export function collectionStatus(db: ReadDb, id: number): string | undefined {
  const status = readStatement(db, 'SELECT status FROM collections WHERE id = ?', 'pluck').get(id);
  return status === undefined ? undefined : textValue(status, 'status');
}
