// team.balance_snapshots (team migrations 1 and 8): serve's poller writes a wallet's balance when it
// changes; desks pull them in seq order. seq, recorded_at and actor are the database's.
import type { Queryable } from './connection.js';

/** A wallet's balance to store; amounts integer minor units as text (int8). */
export interface NewBalanceRow {
  currency: string;
  wallet_type: string;
  available: string;
  actual: string;
  uncleared: string;
  reserve: string;
}

const INSERT_SNAPSHOTS = `
INSERT INTO team.balance_snapshots (observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
SELECT $1::timestamptz, w->>'currency', w->>'wallet_type', (w->>'available')::bigint, (w->>'actual')::bigint,
       (w->>'uncleared')::bigint, (w->>'reserve')::bigint
FROM jsonb_array_elements($2::jsonb) AS a(w)`;

/** Stores the balances observed at `observedAt` (ms since the epoch), in one statement. */
export async function insertBalanceSnapshots(
  db: Queryable,
  observedAt: number,
  rows: readonly NewBalanceRow[],
): Promise<void> {
  await db.query(INSERT_SNAPSHOTS, [new Date(observedAt).toISOString(), JSON.stringify(rows)]);
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

/** Up to `count` balances after `afterSeq`, in seq order. */
export async function selectBalanceSnapshotsAfter(
  db: Queryable,
  afterSeq: number,
  count: number,
): Promise<BalanceSnapshotRow[]> {
  const r = await db.query<BalanceSnapshotRow>(
    `SELECT seq, observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor
     FROM team.balance_snapshots WHERE seq > $1 ORDER BY seq LIMIT $2`,
    [afterSeq, count],
  );
  return r.rows;
}
