// A collection's projection columns (collections): what its events made of it, read and written by the
// ledger's append in its transaction. The rules that decide the values are collections/event-rules.ts's.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { int, maybe, num, rowMapper, text, textOrNull, type RawRow } from '../../columns.js';

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

/** A collection's projection columns from a row that has them: every projection reader's part. */
export function projectionColumnsOf(r: RawRow): ProjectionColumns {
  return {
    status: text(r, 'status'),
    status_changed_at: num(r, 'status_changed_at'),
    status_message: textOrNull(r, 'status_message'),
    redirect_signature: textOrNull(r, 'redirect_signature'),
    amount_minor: int(r, 'amount_minor'),
    currency: text(r, 'currency'),
    internal_reference: textOrNull(r, 'internal_reference'),
    payment_url: textOrNull(r, 'payment_url'),
    redirect_status: textOrNull(r, 'redirect_status'),
    callback_status: textOrNull(r, 'callback_status'),
    flags: int(r, 'flags'),
    final_changes: int(r, 'final_changes'),
  };
}

/** A row of PROJECTION_SELECT: read for every appended event, so a plain mapper. */
const projectionRowOf = rowMapper<ProjectionRow>((r) => ({ id: int(r, 'id'), ...projectionColumnsOf(r) }));

const PROJECTION_SELECT = `SELECT id, status, status_changed_at, status_message, redirect_signature, amount_minor, currency,
         internal_reference, payment_url, redirect_status, callback_status, flags, final_changes FROM collections`;

export function projectionOf(db: ReadDb, collectionId: number): ProjectionRow | undefined {
  return maybe(readStatement(db, `${PROJECTION_SELECT} WHERE id = ?`).get(collectionId), projectionRowOf);
}

/** The projections of the collections of a JSON array of ids (those that exist), one statement for a set. */
export function projectionsIn(db: ReadDb, idsJson: string): ProjectionRow[] {
  return readStatement(db, `${PROJECTION_SELECT} WHERE id IN (SELECT value FROM json_each(?))`)
    .all(idsJson)
    .map(projectionRowOf);
}

/** UPDATE texts by the set of columns that change (their names joined by ','). */
const updateTexts = new Map<string, string>();

/**
 * Sets `columns` of the collection to their values in `values` (keyed by column name). Only the
 * columns that change are SET: an index is rewritten only when a column it holds is SET. The names
 * come from the code (collections/event-rules.ts PROJECTION_COLUMNS), never from input.
 */
export function updateProjection(
  db: WriteDb,
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
