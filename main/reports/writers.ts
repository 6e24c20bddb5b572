// The two reports, streamed from SQLite (statement.iterate, raw rows; the queries are the store's,
// main/store/sqlite/read/collections-report.ts and balances-report.ts) into a line sink. They run on the
// export worker (export-worker.ts) but are plain functions, so they can be called directly too.
import type { ReadDb } from '../store/sqlite/connection.js';
import {
  reportRowById,
  reportRowCount,
  reportRuns,
  RUN_CELLS,
  type ReportRow,
} from '../store/sqlite/read/collections-report.js';
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
  type TimeZoneOption,
} from './csv.js';

export interface ProgressFn {
  (done: number, total: number): void;
}

export interface CollectionsReportParams {
  /** created_at range in ms: from inclusive, to exclusive. */
  from?: number;
  to?: number;
  tz?: TimeZoneOption;
}

export const COLLECTION_COLUMNS = [
  'merchant_reference',
  'internal_reference',
  'created_at',
  'amount',
  'currency',
  'status',
  'initiate_status',
  'redirect_status',
  'callback_status',
  'import_status',
  'manual_status',
  'reconciliation_outcome',
  'reconciliation_kinds',
  'open_exception',
  'charge_customer',
  'allow_final_status_change',
  'description',
  'customer_name',
  'customer_email',
  'operator',
  'provider_code',
  'card_brand',
  'card_last4',
  'status_changed_at',
  'status_message',
  'resolution_note',
  'completed_at',
  'payment_url',
  'redirect_url',
  'collection_id',
] as const;

/**
 * Matches a run of exactly `cells` cells when each, as written, is its own CSV cell: no comma, quote, CR or
 * LF inside (so the commas are exactly the separators and nothing needs quotes) and no leading = + - @ TAB
 * CR (nothing to guard). Then textCell(cell) === cell for every cell and the run is the cells' CSV text.
 */
function cleanRun(cells: number): RegExp {
  const cell = '(?![=+\\-@\\t\\r])[^,"\\r\\n]*';
  return new RegExp(`^${cell}(?:,${cell}){${cells - 1}}$`);
}

export function collectionsHeader(): string {
  return COLLECTION_COLUMNS.map(plainCell).join(',') + EOL;
}

/** Writes the rows (no header) of collections created in [from, to). */
export function writeCollectionRows(
  db: ReadDb,
  params: CollectionsReportParams,
  sink: LineSink,
  progress?: ProgressFn,
  total = 0,
): number {
  // One formatter per time column: each caches the minute it formatted last (see timeFormatter).
  const [created, changed, completed] = [timeFormatter(params.tz), timeFormatter(params.tz), timeFormatter(params.tz)];
  const line = (r: ReportRow) =>
    textCell(r[0]) +
    ',' +
    textCell(r[1]) +
    ',' +
    created!(r[2]) +
    ',' +
    amountCell(r[3], r[4]) +
    ',' +
    textCell(r[4]) +
    ',' +
    r[5] +
    ',' +
    textCell(r[6]) +
    ',' +
    textCell(r[7]) +
    ',' +
    textCell(r[8]) +
    ',' +
    textCell(r[9]) +
    ',' +
    textCell(r[10]) +
    ',' +
    textCell(r[11]) +
    ',' +
    textCell(r[12]) +
    ',' +
    changed!(r[13]) +
    ',' +
    textCell(r[14]) +
    ',' +
    textCell(r[15]) +
    ',' +
    completed!(r[16]) +
    ',' +
    textCell(r[17]) +
    ',' +
    textCell(r[18]) +
    ',' +
    r[19] +
    EOL;
  // A row with a cell that needs a guard or quotes is read again by id, one value per column.
  const byId = reportRowById(db);
  const [refs, middle, contact, urls] = [RUN_CELLS.refs, RUN_CELLS.middle, RUN_CELLS.contact, RUN_CELLS.urls].map(
    cleanRun,
  );
  let n = 0;
  for (const r of reportRuns(db, params)) {
    if (refs!.test(r[0]) && middle!.test(r[4]) && contact!.test(r[7]) && urls!.test(r[12])) {
      sink.push(
        r[0] +
          ',' +
          created!(r[1]) +
          ',' +
          amountCell(r[2], r[3]) +
          ',' +
          r[4] +
          ',' +
          textCell(r[5]) +
          ',' +
          textCell(r[6]) +
          ',' +
          r[7] +
          ',' +
          changed!(r[8]) +
          ',' +
          textCell(r[9]) +
          ',' +
          textCell(r[10]) +
          ',' +
          completed!(r[11]) +
          ',' +
          r[12] +
          EOL,
      );
    } else {
      sink.push(line(byId(r[13])));
    }
    if (++n % 10_000 === 0) progress?.(n, total);
  }
  return n;
}

export function writeCollectionsCsv(
  db: ReadDb,
  params: CollectionsReportParams,
  sink: LineSink,
  progress?: ProgressFn,
): { rows: number } {
  const total = reportRowCount(db, params);
  sink.push(collectionsHeader());
  progress?.(0, total);
  const n = writeCollectionRows(db, params, sink, progress, total);
  sink.flush();
  progress?.(n, total);
  return { rows: n };
}

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
