// How far this desk has applied each stream of the team record (team_sync, migration 12). Written in the
// write transaction of the rows it covers, so a crash never skips nor repeats a batch.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { intValue, numberOrNullValue } from '../../columns.js';

/** The team tables a desk pulls, each with a seq of its own. */
export type SyncStream = 'events' | 'balance_snapshots' | 'payment_option_lists';

/** The last seq of `stream` applied to this database (0 before the first pull). */
export function lastSeq(db: ReadDb, stream: SyncStream): number {
  const v = readStatement(db, 'SELECT last_seq FROM team_sync WHERE stream = ?', 'pluck').get(stream);
  return v === undefined ? 0 : intValue(v, 'last_seq');
}

/** Records how far `stream` is applied; call inside the write transaction of the rows it covers. */
export function setLastSeq(db: WriteDb, stream: SyncStream, seq: number, now: number): void {
  statement(
    db,
    `INSERT INTO team_sync (stream, last_seq, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (stream) DO UPDATE SET last_seq = excluded.last_seq, updated_at = excluded.updated_at`,
  ).run(stream, seq, now);
}

/** When the local copy last took rows from the team database (any stream), or null if it never did. */
export function lastSyncedAt(db: ReadDb): number | null {
  return numberOrNullValue(
    readStatement(db, 'SELECT max(updated_at) FROM team_sync', 'pluck').get(),
    'max(updated_at)',
  );
}
