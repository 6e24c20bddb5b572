// A collection's projection columns (collections): what its events made of it, read and written by the
// ledger's append in its transaction. The rules that decide the values are collections/event-rules.ts's.
import type { Db } from '../connection.js';
import { statement } from '../statements.js';

/**
 * A collection's projection columns, the one definition: what the projection rules read and decide
 * (collections/event-rules.ts), what the ledger's append and the team's copies write.
 */
export interface ProjectionColumns {
  status: string;
  status_changed_at: number;
  status_message: string | null;
  redirect_signature: string | null;
  amount_minor: number;
  currency: string;
  internal_reference: string | null;
  payment_url: string | null;
  redirect_status: string | null;
  callback_status: string | null;
  flags: number;
  final_changes: number;
}

/** The projection columns an append reads, with the collection's id. */
export interface ProjectionRow extends ProjectionColumns {
  id: number;
}

const PROJECTION_SELECT = `SELECT id, status, status_changed_at, status_message, redirect_signature, amount_minor, currency,
         internal_reference, payment_url, redirect_status, callback_status, flags, final_changes FROM collections`;

export function projectionOf(db: Db, collectionId: number): ProjectionRow | undefined {
  return statement(db, `${PROJECTION_SELECT} WHERE id = ?`).get(collectionId) as ProjectionRow | undefined;
}

/** The projections of the collections of a JSON array of ids (those that exist), one statement for a set. */
export function projectionsIn(db: Db, idsJson: string): ProjectionRow[] {
  return statement(db, `${PROJECTION_SELECT} WHERE id IN (SELECT value FROM json_each(?))`).all(
    idsJson,
  ) as ProjectionRow[];
}

/** UPDATE texts by the set of columns that change (their names joined by ','). */
const updateTexts = new Map<string, string>();

/**
 * Sets `columns` of the collection to their values in `values` (keyed by column name). Only the
 * columns that change are SET: an index is rewritten only when a column it holds is SET. The names
 * come from the code (collections/event-rules.ts PROJECTION_COLUMNS), never from input.
 */
export function updateProjection(
  db: Db,
  id: number,
  columns: readonly string[],
  values: Readonly<Record<string, unknown>>,
): void {
  const key = columns.join(',');
  let sql = updateTexts.get(key);
  if (sql === undefined) {
    sql = `UPDATE collections SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`;
    updateTexts.set(key, sql);
  }
  const params: Record<string, unknown> = { id };
  for (const c of columns) params[c] = values[c];
  statement(db, sql).run(params);
}
