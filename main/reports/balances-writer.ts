// The balance report: a summary per currency and wallet type, and every snapshot of the range, streamed
// from SQLite (statement.iterate, raw rows; the queries are the store's, balances-report.ts).
import type { ReadDb } from '../store/sqlite/connection.js';
import {
  snapshotBefore,
  snapshotCount,
  snapshotsInRange,
  walletsObservedBefore,
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

/**
 * Balance report: the summary (per currency and wallet type, for each balance: opening = the value in
 * effect at `from`, or the first one in range; closing; lowest; highest; change) to `writeSummary`, and
 * every snapshot in range to `writeSnapshots`.
 */
export function writeBalancesCsv(
  db: ReadDb,
  params: BalancesReportParams,
  summary: LineSink,
  snaps: LineSink,
  progress?: ProgressFn,
): { rows: number; wallets: number } {
  const time = timeFormatter(params.tz);
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

  snaps.push(BALANCE_SNAPSHOT_COLUMNS.map(plainCell).join(',') + EOL);
  let n = 0;
  const it = snapshotsInRange(db, params.from, params.to);
  for (const r of it) {
    const [at, cur, wt] = r;
    const values = [r[3], r[4], r[5], r[6]];
    snaps.push(
      time(at) +
        ',' +
        textCell(cur) +
        ',' +
        textCell(wt) +
        ',' +
        values.map((v) => amountCell(v, cur)).join(',') +
        ',' +
        r[7] +
        ',' +
        numberCell(r[8]) +
        EOL,
    );
    const s = stats.get(`${cur}\u0000${wt}`);
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
  snaps.flush();

  summary.push(BALANCE_SUMMARY_COLUMNS.map(plainCell).join(',') + EOL);
  for (const s of stats.values()) {
    if (!s.opening || !s.closing) continue;
    for (let i = 0; i < 4; i++) {
      const c = s.currency;
      summary.push(
        [
          textCell(c),
          textCell(s.walletType),
          MEASURES[i]!,
          amountCell(s.opening[i], c),
          amountCell(s.closing[i], c),
          amountCell(s.low[i], c),
          amountCell(s.high[i], c),
          amountCell(s.closing[i]! - s.opening[i]!, c),
          time(s.openingAt),
          time(s.closingAt),
          String(s.count),
        ].join(',') + EOL,
      );
    }
  }
  summary.flush();
  progress?.(n, total);
  return { rows: n, wallets: [...stats.values()].filter((s) => s.opening).length };
}
