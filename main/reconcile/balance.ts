// Balance movement: for each currency and each pair of consecutive successful balance polls, the change
// of the collection wallet's actual balance (available + uncleared + reserve) against the total_credit
// of the collections that completed between the two polls (from verified callback payloads). What is
// left is unexplained. A final status change away from COMPLETED takes its credit back.
import type { Db } from '../store/sqlite/connection.js';
import { toMinor } from '../money/index.js';
import type { MovementResult, MovementTotals } from './types.shared.js';

export type { MovementInterval, MovementResult, MovementTotals } from './types.shared.js';

export interface MovementQuery {
  currency?: string;
  /** Poll time range (ms). Defaults: the last 7 days up to now. */
  from?: number;
  to?: number;
  onlyUnexplained?: boolean;
  /** Most intervals returned (default 1,000). */
  limit?: number;
  now?: number;
}

const WALLET = 'MERCHANT_COLLECTION';

interface CreditEvent {
  id: number;
  merchant_reference: string;
  status: string;
  received_at: number;
  currency: string | null;
  payload: string | null;
  c_currency: string | null;
}

function readCredit(e: { payload: string | null; currency: string | null; c_currency: string | null }): {
  currency: string | null;
  credit: number | null;
} {
  let body: Record<string, unknown> | null = null;
  if (e.payload) {
    try {
      const p = JSON.parse(e.payload) as unknown;
      const inner = p && typeof p === 'object' && 'payload' in p ? (p as { payload: unknown }).payload : p;
      if (inner && typeof inner === 'object') body = inner as Record<string, unknown>;
    } catch {
      body = null;
    }
  }
  const currency =
    (typeof body?.transaction_currency === 'string' ? body.transaction_currency : null) ??
    e.currency ??
    e.c_currency ??
    null;
  if (!body || currency === null || body.total_credit === undefined || body.total_credit === null)
    return { currency, credit: null };
  try {
    return { currency, credit: toMinor(body.total_credit, currency, 'total_credit') };
  } catch {
    return { currency, credit: null };
  }
}

export function balanceMovement(db: Db, q: MovementQuery = {}): MovementResult {
  const now = q.now ?? Date.now();
  const to = q.to ?? now;
  const from = q.from ?? to - 7 * 86_400_000;
  const limit = Math.min(Math.max(q.limit ?? 1000, 1), 10_000);
  const polls = db
    .prepare(
      `SELECT id, COALESCE(finished_at, started_at) AS at FROM poll_runs
        WHERE kind = 'balances' AND outcome = 'ok' AND COALESCE(finished_at, started_at) BETWEEN ? AND ?
        ORDER BY at, id`,
    )
    .all(from, to) as { id: number; at: number }[];
  const result: MovementResult = {
    intervals: [],
    totals: [],
    polls: polls.length,
    quietIntervals: 0,
    unreadableCredits: 0,
    truncated: false,
  };
  if (polls.length < 2) return result;
  const first = polls[0]!.at;
  const last = polls[polls.length - 1]!.at;

  const currencies = q.currency
    ? [q.currency]
    : (db
        .prepare('SELECT DISTINCT currency FROM balance_snapshots WHERE wallet_type = ? ORDER BY currency')
        .pluck()
        .all(WALLET) as string[]);

  // Expected movement per currency, as a sorted list of (time, delta).
  const credits = new Map<string, { at: number; delta: number }[]>();
  const prevOutcome = db.prepare(
    `SELECT status, payload, currency FROM collection_events
      WHERE merchant_reference = ? AND source IN ('callback', 'import') AND kind IN ('outcome', 'final_status_changed') AND signature = 'verified' AND id < ?
      ORDER BY id DESC LIMIT 1`,
  );
  const events = db
    .prepare(
      `SELECT e.id, e.merchant_reference, e.status, e.received_at, e.currency, e.payload, c.currency AS c_currency
         FROM collection_events e LEFT JOIN collections c ON c.id = e.collection_id
        WHERE e.received_at > ? AND e.received_at <= ? AND e.source IN ('callback', 'import') AND e.kind IN ('outcome', 'final_status_changed')
          AND e.signature = 'verified' AND e.status IN ('COMPLETED', 'FAILED', 'CANCELLED')
        ORDER BY e.received_at, e.id`,
    )
    .all(first, last) as CreditEvent[];
  for (const e of events) {
    const prev = prevOutcome.get(e.merchant_reference, e.id) as
      { status: string; payload: string | null; currency: string | null } | undefined;
    let delta = 0;
    let cur: string | null = null;
    if (e.status === 'COMPLETED' && prev?.status !== 'COMPLETED') {
      const r = readCredit(e);
      cur = r.currency;
      if (r.credit === null) result.unreadableCredits++;
      else delta = r.credit;
    } else if (e.status !== 'COMPLETED' && prev?.status === 'COMPLETED') {
      const r = readCredit({ payload: prev.payload, currency: prev.currency, c_currency: e.c_currency });
      cur = r.currency;
      if (r.credit === null) result.unreadableCredits++;
      else delta = -r.credit;
    }
    if (cur === null || (delta === 0 && e.status !== 'COMPLETED')) continue;
    let list = credits.get(cur);
    if (!list) credits.set(cur, (list = []));
    list.push({ at: e.received_at, delta });
  }

  const opening = db.prepare(
    `SELECT actual_minor FROM balance_snapshots WHERE currency = ? AND wallet_type = ? AND observed_at <= ?
      ORDER BY observed_at DESC, id DESC LIMIT 1`,
  );
  const inRange = db.prepare(
    `SELECT observed_at AS at, actual_minor AS actual FROM balance_snapshots
      WHERE currency = ? AND wallet_type = ? AND observed_at > ? AND observed_at <= ? ORDER BY observed_at, id`,
  );
  for (const currency of currencies) {
    const snaps = inRange.all(currency, WALLET, first, last) as { at: number; actual: number }[];
    const open = opening.pluck().get(currency, WALLET, first) as number | undefined;
    const cr = credits.get(currency) ?? [];
    const totals: MovementTotals = {
      currency,
      changeMinor: 0,
      creditedMinor: 0,
      unexplainedMinor: 0,
      intervals: 0,
      unexplainedIntervals: 0,
    };
    let actual: number | undefined = open;
    let si = 0;
    let ci = 0;
    for (let i = 1; i < polls.length; i++) {
      const a = polls[i - 1]!;
      const b = polls[i]!;
      const before = actual;
      while (si < snaps.length && snaps[si]!.at <= b.at) actual = snaps[si++]!.actual;
      let credited = 0;
      let n = 0;
      while (ci < cr.length && cr[ci]!.at <= b.at) {
        credited += cr[ci]!.delta;
        n++;
        ci++;
      }
      if (before === undefined || actual === undefined) continue; // the wallet was not known yet
      const change = actual - before;
      const unexplained = change - credited;
      totals.intervals++;
      totals.changeMinor += change;
      totals.creditedMinor += credited;
      totals.unexplainedMinor += unexplained;
      if (unexplained !== 0) totals.unexplainedIntervals++;
      if (change === 0 && credited === 0 && n === 0) {
        result.quietIntervals++;
        continue;
      }
      if (q.onlyUnexplained && unexplained === 0) continue;
      if (result.intervals.length >= limit) {
        result.truncated = true;
        continue;
      }
      result.intervals.push({
        currency,
        fromPollId: a.id,
        toPollId: b.id,
        fromAt: new Date(a.at).toISOString(),
        toAt: new Date(b.at).toISOString(),
        openingActualMinor: before,
        closingActualMinor: actual,
        changeMinor: change,
        creditedMinor: credited,
        unexplainedMinor: unexplained,
        collections: n,
      });
    }
    result.totals.push(totals);
  }
  result.intervals.sort((x, y) => (x.toAt < y.toAt ? -1 : x.toAt > y.toAt ? 1 : x.currency < y.currency ? -1 : 1));
  return result;
}
