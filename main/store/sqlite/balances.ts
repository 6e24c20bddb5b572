// Wallet balances cache: balance_snapshots is append-only, one row when a wallet's values change or it
// is first seen; poll_runs says when values were (re)confirmed. A failed or malformed poll changes nothing
// but the poll log.
import type { ReadDb, WriteDb } from './connection.js';
import { int, num, rowMapper, text } from '../columns.js';
import { writeTransaction } from './transaction.js';
import type { WalletBalance } from '../../service/types.js';
import { CURRENCY_CODE } from '../../money/index.js';
import { cacheState, insertPollRun, recordFailedRun, type CacheState, type PollError } from './poll-runs.js';
import { DeskError, messageOf } from '../../errors.shared.js';

export interface BalanceRow {
  currency: string;
  walletType: string;
  availableMinor: number;
  actualMinor: number;
  unclearedMinor: number;
  reserveMinor: number;
  /** When these values were first seen (the snapshot's time). */
  observedAt: number;
  /** actual == available + uncleared + reserve. False means the service's numbers do not add up: alert. */
  consistent: boolean;
}

export interface LatestBalances extends CacheState {
  rows: BalanceRow[];
}

/** The service's answer did not make sense (checked before anything is written). */
export class MalformedAnswerError extends DeskError {
  declare readonly kind: 'unreadable';
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('unreadable', message, opts);
  }
}

/**
 * A run's answer, or why there is none. `partial`: a failed run that still read part of its answer (the
 * payment options of some currencies, not of others): that part is stored, the rest stays as cached.
 */
export type RunResult<T> =
  { ok: true; value: T } | { ok: false; error: PollError; partial?: { value: T; currencies: readonly string[] } };

interface SnapshotRow {
  currency: string;
  wallet_type: string;
  available_minor: number;
  actual_minor: number;
  uncleared_minor: number;
  reserve_minor: number;
  observed_at: number;
}

const snapshotRowOf = rowMapper<SnapshotRow>((r) => ({
  currency: text(r, 'currency'),
  wallet_type: text(r, 'wallet_type'),
  available_minor: int(r, 'available_minor'),
  actual_minor: int(r, 'actual_minor'),
  uncleared_minor: int(r, 'uncleared_minor'),
  reserve_minor: int(r, 'reserve_minor'),
  observed_at: num(r, 'observed_at'),
}));

function toRow(r: SnapshotRow): BalanceRow {
  return {
    currency: r.currency,
    walletType: r.wallet_type,
    availableMinor: r.available_minor,
    actualMinor: r.actual_minor,
    unclearedMinor: r.uncleared_minor,
    reserveMinor: r.reserve_minor,
    observedAt: r.observed_at,
    consistent: r.actual_minor === r.available_minor + r.uncleared_minor + r.reserve_minor,
  };
}

// balance_wallets (migration 004) points at each wallet's latest snapshot: no scan of the history.
const LATEST_SQL = `
  SELECT s.currency, s.wallet_type, s.available_minor, s.actual_minor, s.uncleared_minor, s.reserve_minor, s.observed_at
  FROM balance_wallets w JOIN balance_snapshots s ON s.id = w.last_snapshot_id
  ORDER BY s.currency, s.wallet_type`;

/** Checks an answer before it is written: safe integers, currency codes, no wallet listed twice. */
export function checkBalances(balances: readonly WalletBalance[]): void {
  if (!Array.isArray(balances)) throw new MalformedAnswerError('merchant_balances is not a list');
  const seen = new Set<string>();
  balances.forEach((b, i) => {
    const at = `merchant_balances[${i}]`;
    if (typeof b.currency !== 'string' || !CURRENCY_CODE.test(b.currency)) {
      throw new MalformedAnswerError(`${at}.currency is not a 3-letter currency code`);
    }
    if (typeof b.walletType !== 'string' || b.walletType.length === 0) {
      throw new MalformedAnswerError(`${at}.wallet_type is missing`);
    }
    for (const [f, v] of [
      ['available_balance', b.availableMinor],
      ['actual_balance', b.actualMinor],
      ['uncleared_balance', b.unclearedMinor],
      ['reserve_balance', b.reserveMinor],
    ] as const) {
      if (!Number.isSafeInteger(v)) throw new MalformedAnswerError(`${at}.${f} is not a valid amount`);
    }
    const key = `${b.currency}/${b.walletType}`;
    if (seen.has(key)) throw new MalformedAnswerError(`the service listed wallet ${key} twice`);
    seen.add(key);
  });
}

/**
 * Records one balances poll in one transaction: the poll_runs row, and a snapshot for every wallet whose
 * values changed or that is new. On an error result (or an answer that fails checkBalances) only the
 * failed run is recorded. Returns the run id and how many snapshots were written.
 */
export function recordBalanceRun(
  db: WriteDb,
  run: { startedAt: number; finishedAt: number; result: RunResult<readonly WalletBalance[]> },
): { runId: number; changed: number; error: PollError | null } {
  const { startedAt, finishedAt, result } = run;
  if (!result.ok) {
    return {
      runId: recordFailedRun(db, 'balances', startedAt, finishedAt, result.error),
      changed: 0,
      error: result.error,
    };
  }
  try {
    checkBalances(result.value);
  } catch (e) {
    const error: PollError = {
      kind: 'unreadable',
      message: `the balances answer was not usable: ${messageOf(e)}`,
    };
    return { runId: recordFailedRun(db, 'balances', startedAt, finishedAt, error), changed: 0, error };
  }
  return writeTransaction(db, () => {
    const latest = new Map<string, SnapshotRow>();
    for (const r of db.prepare(LATEST_SQL).all().map(snapshotRowOf)) latest.set(`${r.currency}/${r.wallet_type}`, r);
    const changedWallets = result.value.filter((b) => {
      const prev = latest.get(`${b.currency}/${b.walletType}`);
      return (
        !prev ||
        prev.available_minor !== b.availableMinor ||
        prev.actual_minor !== b.actualMinor ||
        prev.uncleared_minor !== b.unclearedMinor ||
        prev.reserve_minor !== b.reserveMinor
      );
    });
    const runId = insertPollRun(db, {
      kind: 'balances',
      startedAt,
      finishedAt,
      outcome: 'ok',
      changedRows: changedWallets.length,
    });
    const ins = db.prepare(
      `INSERT INTO balance_snapshots (poll_run_id, observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const point = db.prepare(
      `INSERT INTO balance_wallets (currency, wallet_type, last_snapshot_id) VALUES (?, ?, ?)
       ON CONFLICT (currency, wallet_type) DO UPDATE SET last_snapshot_id = excluded.last_snapshot_id`,
    );
    for (const b of changedWallets) {
      const info = ins.run(
        runId,
        finishedAt,
        b.currency,
        b.walletType,
        b.availableMinor,
        b.actualMinor,
        b.unclearedMinor,
        b.reserveMinor,
      );
      point.run(b.currency, b.walletType, Number(info.lastInsertRowid));
    }
    return { runId, changed: changedWallets.length, error: null };
  });
}

/** The cached balances (latest snapshot per wallet), with as-of, the last error and the stale flag. */
export function latestBalances(
  db: ReadDb,
  opts: { now: number; staleAfterMs: number; currency?: string },
): LatestBalances {
  let rows = db.prepare(LATEST_SQL).all().map(snapshotRowOf).map(toRow);
  if (opts.currency) rows = rows.filter((r) => r.currency === opts.currency);
  return { rows, ...cacheState(db, 'balances', opts.now, opts.staleAfterMs) };
}

export interface BalancePoint {
  at: number;
  currency: string;
  walletType: string;
  availableMinor: number;
  actualMinor: number;
  unclearedMinor: number;
  reserveMinor: number;
}

/**
 * Balance history of one currency (optionally one wallet type) over [from, to]: each wallet's value at
 * `from` (its last snapshot before, shown at `from`) followed by every change inside the range, in time order.
 */
export function balanceHistory(
  db: ReadDb,
  q: { currency: string; walletType?: string; from: number; to: number },
): BalancePoint[] {
  const wt = q.walletType ?? null;
  const before = db
    .prepare(
      `SELECT s.* FROM balance_snapshots s
       JOIN (SELECT wallet_type, MAX(id) AS id FROM balance_snapshots
             WHERE currency = ? AND observed_at < ? AND (? IS NULL OR wallet_type = ?) GROUP BY wallet_type) m ON m.id = s.id`,
    )
    .all(q.currency, q.from, wt, wt)
    .map(snapshotRowOf);
  const inside = db
    .prepare(
      `SELECT * FROM balance_snapshots
       WHERE currency = ? AND observed_at >= ? AND observed_at <= ? AND (? IS NULL OR wallet_type = ?)
       ORDER BY observed_at, id`,
    )
    .all(q.currency, q.from, q.to, wt, wt)
    .map(snapshotRowOf);
  const point = (r: SnapshotRow, at: number): BalancePoint => ({
    at,
    currency: r.currency,
    walletType: r.wallet_type,
    availableMinor: r.available_minor,
    actualMinor: r.actual_minor,
    unclearedMinor: r.uncleared_minor,
    reserveMinor: r.reserve_minor,
  });
  return [
    ...before.sort((a, b) => a.wallet_type.localeCompare(b.wallet_type)).map((r) => point(r, q.from)),
    ...inside.map((r) => point(r, r.observed_at)),
  ];
}
