// team.payment_option_lists (team migrations 1 and 8): each successful poll's whole list of payment
// options (the client's PaymentOption objects, a JSON array), written by serve when it changes; the
// newest row is the list. seq, recorded_at and actor are the database's.
import type { Queryable } from './connection.js';
import { date, maybe, rowMapper, text } from '../columns.js';
import { HOLDS_POLLER_LEASE, type PollerLeaseFence } from './balance-snapshots.js';

/**
 * Stores the list fetched at `fetchedAt` (ms since the epoch); `optionsJson` is its JSON text. With a
 * `fence`, only while its instance holds the poller lease (balance-snapshots.ts). Whether it was written.
 */
export async function insertPaymentOptionList(
  db: Queryable,
  fetchedAt: number,
  optionsJson: string,
  fence: PollerLeaseFence | null = null,
): Promise<boolean> {
  const at = new Date(fetchedAt).toISOString();
  const r = fence
    ? await db.query(
        `INSERT INTO team.payment_option_lists (fetched_at, options)
         SELECT $1::timestamptz, $2::jsonb WHERE ${HOLDS_POLLER_LEASE('$3', '$4')}`,
        [at, optionsJson, fence.instance, fence.seconds],
      )
    : await db.query(
        `INSERT INTO team.payment_option_lists (fetched_at, options) VALUES ($1::timestamptz, $2::jsonb)`,
        [at, optionsJson],
      );
  return (r.rowCount ?? 0) > 0;
}

/** A list as stored (seq as text). */
export interface PaymentOptionListRow {
  seq: string;
  fetched_at: Date;
  /** The JSON array as written (PaymentOption objects); the desk checks each before it keeps them. */
  options: unknown;
}
const paymentOptionListRowOf = rowMapper<PaymentOptionListRow>((r) => ({
  seq: text(r, 'seq'),
  fetched_at: date(r, 'fetched_at'),
  options: r.options,
}));

/** The newest list stored after `afterSeq`; undefined when none is. */
export async function selectNewestPaymentOptionList(
  db: Queryable,
  afterSeq: number,
): Promise<PaymentOptionListRow | undefined> {
  const r = await db.query(
    `SELECT seq, fetched_at, options FROM team.payment_option_lists WHERE seq > $1 ORDER BY seq DESC LIMIT 1`,
    [afterSeq],
  );
  return maybe(r.rows[0], paymentOptionListRowOf);
}
