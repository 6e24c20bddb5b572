// Balance movement: for each currency and each pair of consecutive successful balance polls, the change
// of the collection wallet's actual balance (available + uncleared + reserve) against the total_credit
// of the collections that completed between the two polls (from verified callback payloads). What is
// left is unexplained. A final status change away from COMPLETED takes its credit back.
import type { ReadDb } from '../store/sqlite/connection.js';
import {
  actualsBetween,
  balancePolls,
  creditEvents,
  openingActual,
  previousOutcome,
  walletCurrencies,
} from '../store/sqlite/read/movement.js';
import { toMinor } from '../money/index.js';
import { callbackBody } from './callback-body.js';
import type { MovementResult, MovementTotals } from './types.shared.js';

export type { MovementInterval, MovementResult, MovementTotals } from './types.shared.js';

export interface MovementQuery {
  currency?: string | undefined;
  /** Poll time range (ms). Defaults: the last 7 days up to now. */
  from?: number | undefined;
  to?: number | undefined;
  onlyUnexplained?: boolean | undefined;
  /** Most intervals returned (default 1,000). */
  limit?: number | undefined;
  now?: number | undefined;
}

const WALLET = 'MERCHANT_COLLECTION';

function readCredit(e: { payload: string | null; currency: string | null; c_currency: string | null }): {
  currency: string | null;
  credit: number | null;
} {
  const body = callbackBody(e.payload);
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

/** A credit's effect on the wallet: +total_credit as it completes, -total_credit when it leaves COMPLETED. */
type Credit = { at: number; delta: number };

/**
 * Expected movement per currency, as a time-sorted list of credits between the first and last poll;
 * a credit whose amount cannot be read is counted in `result.unreadableCredits`.
 */
function expectedCredits(db: ReadDb, first: number, last: number, result: MovementResult): Map<string, Credit[]> {
  const credits = new Map<string, Credit[]>();
  for (const e of creditEvents(db, first, last)) {
    const prev = previousOutcome(db, e.merchant_reference, e.id);
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
  return credits;
}

/**
 * One currency's intervals between consecutive polls: the actual balance's change against the credits
 * in the interval. Adds the intervals the query asks for to `result` (at most `limit` in all) and
 * returns the currency's totals over every interval.
 */
function currencyMovement(
  db: ReadDb,
  currency: string,
  polls: readonly { id: number; at: number }[],
  cr: readonly Credit[],
  q: MovementQuery,
  limit: number,
  result: MovementResult,
): MovementTotals {
  const first = polls[0]!.at;
  const last = polls[polls.length - 1]!.at;
  const snaps = actualsBetween(db, currency, WALLET, first, last);
  const totals: MovementTotals = {
    currency,
    changeMinor: 0,
    creditedMinor: 0,
    unexplainedMinor: 0,
    intervals: 0,
    unexplainedIntervals: 0,
  };
  let actual: number | undefined = openingActual(db, currency, WALLET, first);
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
  return totals;
}

export function balanceMovement(db: ReadDb, q: MovementQuery = {}): MovementResult {
  const now = q.now ?? Date.now();
  const to = q.to ?? now;
  const from = q.from ?? to - 7 * 86_400_000;
  const limit = Math.min(Math.max(q.limit ?? 1000, 1), 10_000);
  const polls = balancePolls(db, from, to);
  const result: MovementResult = {
    intervals: [],
    totals: [],
    polls: polls.length,
    quietIntervals: 0,
    unreadableCredits: 0,
    truncated: false,
  };
  if (polls.length < 2) return result;
  const currencies = q.currency ? [q.currency] : walletCurrencies(db, WALLET);
  const credits = expectedCredits(db, polls[0]!.at, polls[polls.length - 1]!.at, result);
  for (const currency of currencies)
    result.totals.push(currencyMovement(db, currency, polls, credits.get(currency) ?? [], q, limit, result));
  result.intervals.sort((x, y) => (x.toAt < y.toAt ? -1 : x.toAt > y.toAt ? 1 : x.currency < y.currency ? -1 : 1));
  return result;
}
