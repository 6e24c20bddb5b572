// The balance report's queries (reports/balances-writer.ts formats them): the snapshots of a time range in
// order, and for each wallet the snapshot in effect when the range starts.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';

/** A snapshot row: observed_at, currency, wallet_type, available, uncleared, reserve, actual, id, poll_run_id. */
export type SnapshotRow = [number, string, string, number, number, number, number, number, number | null];

/** How many snapshots were observed in [from, to). */
export function snapshotCount(db: ReadDb, from: number, to: number): number {
  return readStatement(
    db,
    'SELECT COUNT(*) FROM balance_snapshots WHERE observed_at >= ? AND observed_at < ?',
    'pluck',
  ).get(from, to) as number;
}

/** Every wallet (currency, wallet type) with a snapshot observed before `to`, sorted. */
export function walletsObservedBefore(db: ReadDb, to: number): { currency: string; wallet_type: string }[] {
  return readStatement(
    db,
    'SELECT DISTINCT currency, wallet_type FROM balance_snapshots WHERE observed_at < ? ORDER BY currency, wallet_type',
  ).all(to) as { currency: string; wallet_type: string }[];
}

/** The wallet's last snapshot observed before `at`: [observed_at, available, uncleared, reserve, actual]. */
export function snapshotBefore(
  db: ReadDb,
  currency: string,
  walletType: string,
  at: number,
): [number, number, number, number, number] | undefined {
  return readStatement(
    db,
    `SELECT observed_at, available_minor, uncleared_minor, reserve_minor, actual_minor FROM balance_snapshots
      WHERE currency = ? AND wallet_type = ? AND observed_at < ? ORDER BY observed_at DESC, id DESC LIMIT 1`,
    'raw',
  ).get(currency, walletType, at) as [number, number, number, number, number] | undefined;
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
