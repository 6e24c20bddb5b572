// team.balance_snapshots (team migrations 1 and 8): serve's poller writes a wallet's balance when it
// changes; desks pull them in seq order. seq, recorded_at and actor are the database's.
import type { Queryable } from './connection.js';
import { date, rowMapper, text } from '../columns.js';

/** A wallet's balance to store; amounts integer minor units as text (int8). */
export interface NewBalanceRow {
  currency: string;
  wallet_type: string;
  available: string;
  actual: string;
  uncleared: string;
  reserve: string;
}

/**
 * The poller lease a poll's write holds (team migration 16): the write takes or renews it for `seconds`
 * in its own statement, and writes nothing when another instance holds it.
 */
export interface PollerLeaseFence {
  instance: string;
  seconds: number;
}

/** The condition a fenced write adds: this instance holds the poller lease (taken or renewed now). */
export const HOLDS_POLLER_LEASE = (instance: string, seconds: string) =>
  `(SELECT l.held FROM team.take_poller_lease(${instance}::text, ${seconds}::integer) AS l)`;

const INSERT_SNAPSHOTS = `
INSERT INTO team.balance_snapshots (observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
SELECT $1::timestamptz, w->>'currency', w->>'wallet_type', (w->>'available')::bigint, (w->>'actual')::bigint,
       (w->>'uncleared')::bigint, (w->>'reserve')::bigint
FROM jsonb_array_elements($2::jsonb) AS a(w)`;

const INSERT_SNAPSHOTS_FENCED = `${INSERT_SNAPSHOTS}
WHERE ${HOLDS_POLLER_LEASE('$3', '$4')}`;

/**
 * Stores the balances observed at `observedAt` (ms since the epoch), in one statement; with a `fence`,
 * only while its instance holds the poller lease. Whether they were written.
 */
export async function insertBalanceSnapshots(
  db: Queryable,
  observedAt: number,
  rows: readonly NewBalanceRow[],
  fence: PollerLeaseFence | null = null,
): Promise<boolean> {
  const at = new Date(observedAt).toISOString();
  const r = fence
    ? await db.query(INSERT_SNAPSHOTS_FENCED, [at, JSON.stringify(rows), fence.instance, fence.seconds])
    : await db.query(INSERT_SNAPSHOTS, [at, JSON.stringify(rows)]);
  return (r.rowCount ?? 0) > 0 || rows.length === 0;
}

/** A balance as stored (bigints as text). */
export interface BalanceSnapshotRow {
  seq: string;
  observed_at: Date;
  currency: string;
  wallet_type: string;
  available_minor: string;
  actual_minor: string;
  uncleared_minor: string;
  reserve_minor: string;
}

const balanceSnapshotRowOf = rowMapper<BalanceSnapshotRow>((r) => ({
  seq: text(r, 'seq'),
  observed_at: date(r, 'observed_at'),
  currency: text(r, 'currency'),
  wallet_type: text(r, 'wallet_type'),
  available_minor: text(r, 'available_minor'),
  actual_minor: text(r, 'actual_minor'),
  uncleared_minor: text(r, 'uncleared_minor'),
  reserve_minor: text(r, 'reserve_minor'),
}));

/** Up to `count` balances after `afterSeq`, in seq order. */
export async function selectBalanceSnapshotsAfter(
  db: Queryable,
  afterSeq: number,
  count: number,
): Promise<BalanceSnapshotRow[]> {
  const r = await db.query(
    `SELECT seq, observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor
     FROM team.balance_snapshots WHERE seq > $1 ORDER BY seq LIMIT $2`,
    [afterSeq, count],
  );
  return r.rows.map(balanceSnapshotRowOf);
}
