import { StoreError } from '../../store/store-error.js';
import { TeamError } from '../errors.js';

/** A snapshot a desk will not use, and why (the desk then replays the events instead). */
export class SnapshotRejectedError extends TeamError {
  override name = 'SnapshotRejectedError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the team snapshot was not used: ${reason}`, undefined, options);
  }
}

/**
 * Rethrows what a column reader (store/columns.ts) threw: a value of another type than its column's
 * (a StoreError naming the column) as the snapshot's refusal, with the table and the row; else as it is.
 */
export function refusedRow(e: unknown, table: string, id: unknown): never {
  if (e instanceof StoreError) throw new SnapshotRejectedError(`${table} row ${String(id)}: ${e.message}`);
  throw e;
}
