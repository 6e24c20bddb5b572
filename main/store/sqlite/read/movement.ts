// What the balance movement screen reads (main/reconcile/balance.ts computes the intervals): the
// successful balance polls, the collection wallet's snapshots around them, and the verified
// callback-side outcomes between them. Read only.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { int, intValue, maybe, num, rowMapper, text, textOrNull, texts } from '../../columns.js';

/** A successful balance poll and when it finished. */
export interface BalancePoll {
  id: number;
  at: number;
}

/** A verified callback-side final outcome, with its collection's currency. */
export interface CreditEvent {
  id: number;
  merchant_reference: string;
  status: string;
  received_at: number;
  currency: string | null;
  payload: string | null;
  c_currency: string | null;
}

/** The verified callback-side outcome before another one of the same reference. */
export interface PreviousOutcome {
  status: string;
  payload: string | null;
  currency: string | null;
}

const balancePollOf = rowMapper<BalancePoll>((r) => ({ id: int(r, 'id'), at: num(r, 'at') }));
const creditEventOf = rowMapper<CreditEvent>((r) => ({
  id: int(r, 'id'),
  merchant_reference: text(r, 'merchant_reference'),
  status: text(r, 'status'),
  received_at: num(r, 'received_at'),
  currency: textOrNull(r, 'currency'),
  payload: textOrNull(r, 'payload'),
  c_currency: textOrNull(r, 'c_currency'),
}));
const previousOutcomeOf = rowMapper<PreviousOutcome>((r) => ({
  status: text(r, 'status'),
  payload: textOrNull(r, 'payload'),
  currency: textOrNull(r, 'currency'),
}));
const actualAtOf = rowMapper((r) => ({ at: num(r, 'at'), actual: int(r, 'actual') }));

/** Successful balance polls that finished between `from` and `to`, in order. */
export function balancePolls(db: ReadDb, from: number, to: number): BalancePoll[] {
  return readStatement(
    db,
    `SELECT id, COALESCE(finished_at, started_at) AS at FROM poll_runs
        WHERE kind = 'balances' AND outcome = 'ok' AND COALESCE(finished_at, started_at) BETWEEN ? AND ?
        ORDER BY at, id`,
  )
    .all(from, to)
    .map(balancePollOf);
}

/** Every currency with a snapshot of `walletType`. */
export function walletCurrencies(db: ReadDb, walletType: string): string[] {
  return texts(
    readStatement(
      db,
      'SELECT DISTINCT currency FROM balance_snapshots WHERE wallet_type = ? ORDER BY currency',
      'pluck',
    ).all(walletType),
    'currency',
  );
}

/** Verified callback-side final outcomes received in (after, upTo], by time. */
export function creditEvents(db: ReadDb, after: number, upTo: number): CreditEvent[] {
  return readStatement(
    db,
    `SELECT e.id, e.merchant_reference, e.status, e.received_at, e.currency, e.payload, c.currency AS c_currency
         FROM collection_events e LEFT JOIN collections c ON c.id = e.collection_id
        WHERE e.received_at > ? AND e.received_at <= ? AND e.source IN ('callback', 'import') AND e.kind IN ('outcome', 'final_status_changed')
          AND e.signature = 'verified' AND e.status IN ('COMPLETED', 'FAILED', 'CANCELLED')
        ORDER BY e.received_at, e.id`,
  )
    .all(after, upTo)
    .map(creditEventOf);
}

/** The verified callback-side outcome of `merchantReference` stored last before event `beforeId`. */
export function previousOutcome(db: ReadDb, merchantReference: string, beforeId: number): PreviousOutcome | undefined {
  const row = readStatement(
    db,
    `SELECT status, payload, currency FROM collection_events
      WHERE merchant_reference = ? AND source IN ('callback', 'import') AND kind IN ('outcome', 'final_status_changed') AND signature = 'verified' AND id < ?
      ORDER BY id DESC LIMIT 1`,
  ).get(merchantReference, beforeId);
  return maybe(row, previousOutcomeOf);
}

/** The wallet's actual balance as of `at` (its last snapshot then), if any. */
export function openingActual(db: ReadDb, currency: string, walletType: string, at: number): number | undefined {
  const actual = readStatement(
    db,
    `SELECT actual_minor FROM balance_snapshots WHERE currency = ? AND wallet_type = ? AND observed_at <= ?
      ORDER BY observed_at DESC, id DESC LIMIT 1`,
    'pluck',
  ).get(currency, walletType, at);
  return actual === undefined ? undefined : intValue(actual, 'actual_minor');
}

/** The wallet's snapshots in (after, upTo], in order. */
export function actualsBetween(
  db: ReadDb,
  currency: string,
  walletType: string,
  after: number,
  upTo: number,
): { at: number; actual: number }[] {
  return readStatement(
    db,
    `SELECT observed_at AS at, actual_minor AS actual FROM balance_snapshots
      WHERE currency = ? AND wallet_type = ? AND observed_at > ? AND observed_at <= ? ORDER BY observed_at, id`,
  )
    .all(currency, walletType, after, upTo)
    .map(actualAtOf);
}
