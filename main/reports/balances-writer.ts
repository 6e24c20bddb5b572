// The balance report: a summary per currency and wallet type, and every snapshot of the range, streamed
// from SQLite (statement.iterate, raw rows; the queries are the store's, balances-report.ts).
import type { ReadDb } from '../store/sqlite/connection.js';
import {
  snapshotBefore,
  snapshotCount,
  snapshotsInRange,
  walletsObservedBefore,
  type SnapshotRow,
} from '../store/sqlite/read/balances-report.js';
import {
  amountCell,
  EOL,
  numberCell,
  plainCell,
  textCell,
  timeFormatter,
  type LineSink,
  type ProgressFn,
  type TimeZoneOption,
} from './csv.js';

export interface BalancesReportParams {
  /** observed_at range in ms: from inclusive, to exclusive. */
  from: number;
  to: number;
  tz?: TimeZoneOption;
}

export const BALANCE_SUMMARY_COLUMNS = [
  'currency',
  'wallet_type',
  'balance',
  'opening',
  'closing',
  'lowest',
  'highest',
  'change',
  'opening_observed_at',
  'closing_observed_at',
  'snapshots_in_range',
] as const;

export const BALANCE_SNAPSHOT_COLUMNS = [
  'observed_at',
  'currency',
  'wallet_type',
  'available',
  'uncleared',
  'reserve',
  'actual',
  'snapshot_id',
  'poll_run_id',
] as const;

const MEASURES = ['available', 'uncleared', 'reserve', 'actual'] as const;

interface WalletStats {
  currency: string;
  walletType: string;
  openingAt: number | null;
  closingAt: number | null;
  opening: number[] | null;
  closing: number[] | null;
  low: number[];
  high: number[];
  count: number;
}

/** One line of the balance report's summary: a balance of a wallet over the range. */
export interface BalanceSummaryLine {
  currency: string;
  walletType: string;
  balance: (typeof MEASURES)[number];
  opening: number;
  closing: number;
  lowest: number;
  highest: number;
  openingAt: number | null;
  closingAt: number | null;
  snapshots: number;
}

/**
 * The balance report, whatever its format: every snapshot in range to `onSnapshot` as it is read, then
 * the summary (per currency and wallet type, for each balance: opening = the value in effect at `from`,
 * or the first one in range; closing; lowest; highest) from what was read.
 */
export function walkBalances(
  db: ReadDb,
  params: BalancesReportParams,
  onSnapshot: (r: SnapshotRow) => void,
  progress?: ProgressFn,
): { rows: number; summary: BalanceSummaryLine[] } {
  const total = snapshotCount(db, params.from, params.to);
  progress?.(0, total);
  const stats = new Map<string, WalletStats>();
  const wallets = walletsObservedBefore(db, params.to);
  for (const w of wallets) {
    const o = snapshotBefore(db, w.currency, w.wallet_type, params.from);
    const values = o ? o.slice(1) : null;
    stats.set(`${w.currency}\u0000${w.wallet_type}`, {
      currency: w.currency,
      walletType: w.wallet_type,
      openingAt: o ? o[0] : null,
      closingAt: o ? o[0] : null,
      opening: values,
      closing: values,
      low: values ? [...values] : [],
      high: values ? [...values] : [],
      count: 0,
    });
  }

  let n = 0;
  for (const r of snapshotsInRange(db, params.from, params.to)) {
    onSnapshot(r);
    const at = r[0];
    const values = [r[3], r[4], r[5], r[6]];
    const s = stats.get(`${r[1]}\u0000${r[2]}`);
    if (s) {
      if (!s.opening) {
        s.opening = values;
        s.openingAt = at;
        s.low = [...values];
        s.high = [...values];
      }
      s.closing = values;
      s.closingAt = at;
      s.count++;
      for (let i = 0; i < 4; i++) {
        if (values[i]! < s.low[i]!) s.low[i] = values[i]!;
        if (values[i]! > s.high[i]!) s.high[i] = values[i]!;
      }
    }
    if (++n % 10_000 === 0) progress?.(n, total);
  }

  const summary: BalanceSummaryLine[] = [];
  for (const s of stats.values()) {
    if (!s.opening || !s.closing) continue;
    for (let i = 0; i < 4; i++) {
      summary.push({
        currency: s.currency,
        walletType: s.walletType,
        balance: MEASURES[i]!,
        opening: s.opening[i]!,
        closing: s.closing[i]!,
        lowest: s.low[i]!,
        highest: s.high[i]!,
        openingAt: s.openingAt,
        closingAt: s.closingAt,
        snapshots: s.count,
      });
    }
  }
  return { rows: n, summary };
}

/**
 * Balance report as CSV: the summary (walkBalances; change = closing - opening) to `summary`, and every
 * snapshot in range to `snaps`.
 */
export function writeBalancesCsv(
  db: ReadDb,
  params: BalancesReportParams,
  summary: LineSink,
  snaps: LineSink,
  progress?: ProgressFn,
): { rows: number; wallets: number } {
  const time = timeFormatter(params.tz);
  snaps.push(BALANCE_SNAPSHOT_COLUMNS.map(plainCell).join(',') + EOL);
  const r = walkBalances(
    db,
    params,
    (s) => {
      const cur = s[1];
      snaps.push(
        time(s[0]) +
          ',' +
          textCell(cur) +
          ',' +
          textCell(s[2]) +
          ',' +
          amountCell(s[3], cur) +
          ',' +
          amountCell(s[4], cur) +
          ',' +
          amountCell(s[5], cur) +
          ',' +
          amountCell(s[6], cur) +
          ',' +
          s[7] +
          ',' +
          numberCell(s[8]) +
          EOL,
      );
    },
    progress,
  );
  snaps.flush();

  summary.push(BALANCE_SUMMARY_COLUMNS.map(plainCell).join(',') + EOL);
  for (const l of r.summary) {
    const c = l.currency;
    summary.push(
      [
        textCell(c),
        textCell(l.walletType),
        l.balance,
        amountCell(l.opening, c),
        amountCell(l.closing, c),
        amountCell(l.lowest, c),
        amountCell(l.highest, c),
        amountCell(l.closing - l.opening, c),
        time(l.openingAt),
        time(l.closingAt),
        String(l.snapshots),
      ].join(',') + EOL,
    );
  }
  summary.flush();
  progress?.(r.rows, r.rows);
  return { rows: r.rows, wallets: r.summary.length / 4 };
}
