// The balance report's queries (reports/balances-writer.ts formats them): the snapshots of a time range in
// order, and for each wallet the snapshot in effect when the range starts.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { int, intValue, maybe, rowMapper, text } from '../../columns.js';

type SnapshotBefore = [number, number, number, number, number];
const snapshotBeforeOf = rowMapper((r): SnapshotBefore => [
  int(r, 'observed_at'),
  int(r, 'available_minor'),
  int(r, 'uncleared_minor'),
  int(r, 'reserve_minor'),
  int(r, 'actual_minor'),
]);
const walletOf = rowMapper((r) => ({ currency: text(r, 'currency'), wallet_type: text(r, 'wallet_type') }));

/** A snapshot row: observed_at, currency, wallet_type, available, uncleared, reserve, actual, id, poll_run_id. */
export type SnapshotRow = [number, string, string, number, number, number, number, number, number | null];

/** How many snapshots were observed in [from, to). */
export function snapshotCount(db: ReadDb, from: number, to: number): number {
  return intValue(
    readStatement(db, 'SELECT COUNT(*) FROM balance_snapshots WHERE observed_at >= ? AND observed_at < ?', 'pluck').get(
      from,
      to,
    ),
    'count(*)',
  );
}

/** Every wallet (currency, wallet type) with a snapshot observed before `to`, sorted. */
export function walletsObservedBefore(db: ReadDb, to: number): { currency: string; wallet_type: string }[] {
  return readStatement(
    db,
    'SELECT DISTINCT currency, wallet_type FROM balance_snapshots WHERE observed_at < ? ORDER BY currency, wallet_type',
  )
    .all(to)
    .map(walletOf);
}

/** The wallet's last snapshot observed before `at`: [observed_at, available, uncleared, reserve, actual]. */
export function snapshotBefore(
  db: ReadDb,
  currency: string,
  walletType: string,
  at: number,
): SnapshotBefore | undefined {
  const row = readStatement(
    db,
    `SELECT observed_at, available_minor, uncleared_minor, reserve_minor, actual_minor FROM balance_snapshots
      WHERE currency = ? AND wallet_type = ? AND observed_at < ? ORDER BY observed_at DESC, id DESC LIMIT 1`,
  ).get(currency, walletType, at);
  return maybe(row, snapshotBeforeOf);
}

/** The snapshots observed in [from, to), in order. */
export function snapshotsInRange(db: ReadDb, from: number, to: number): IterableIterator<SnapshotRow> {
  return readStatement(
    db,
    `SELECT observed_at, currency, wallet_type, available_minor, uncleared_minor, reserve_minor, actual_minor, id, poll_run_id
         FROM balance_snapshots WHERE observed_at >= ? AND observed_at < ? ORDER BY observed_at, id`,
    'raw',
  ).iterate(from, to) as IterableIterator<SnapshotRow>;
}
