// The two reports, streamed from SQLite (statement.iterate, raw rows; the queries are the store's,
// main/store/sqlite/read/collections-report.ts and balances-report.ts) into a line sink. They run on the
// export worker (export-worker.ts) but are plain functions, so they can be called directly too.
import type { ReadDb } from '../store/sqlite/connection.js';
import {
  LINE_RUNS,
  reportLines,
  reportRowById,
  reportRowCount,
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
 * A cell as written: no comma, quote, CR or LF inside (so commas are exactly the separators and nothing
 * needs quotes) and no leading = + - @ TAB CR (nothing to guard), so that textCell(cell) === cell; and
 * neither of the line's separators (US, RS: reportLines).
 */
const CELL = '(?![=+\\-@\\t\\r])[^,"\\r\\n\\x1e\\x1f]*';
/** `cells` such cells joined by commas. */
const cells = (n: number) => `${CELL}(?:,${CELL}){${n - 1}}`;
/** An integer as SQLite writes one that a JS number holds exactly (at most 15 digits). */
const INT = '-?\\d{1,15}';

/** A run of exactly `n` clean cells, alone. */
const runOf = (n: number) => new RegExp(`^${cells(n)}$`);
const RUN = {
  refs: runOf(LINE_RUNS.refs.length),
  middle: runOf(LINE_RUNS.middle.length),
  contact: runOf(LINE_RUNS.contact.length),
  urls: runOf(LINE_RUNS.urls.length),
};
const IS_INT = new RegExp(`^${INT}$`);

/**
 * A reportLines row whose every cell is written as it is (each text cell clean, the times and the
 * amount integers): then the CSV line is the row with its separators made commas and the times and the
 * amount formatted. One test of the whole row: most rows of a year take this path.
 */
const AS_IS = new RegExp(
  `^${cells(LINE_RUNS.refs.length)}\\x1f${INT}\\x1f${INT}\\x1f${cells(LINE_RUNS.middle.length)}\\x1e${CELL}\\x1e${CELL}` +
    `\\x1e${cells(LINE_RUNS.contact.length)}\\x1f${INT}\\x1f${CELL}\\x1e${CELL}\\x1f(?:${INT})?\\x1f${cells(LINE_RUNS.urls.length)}$`,
);

/** An integer's digits at s[from, to) (checked by AS_IS or IS_INT: at most 15 digits, maybe a minus). */
function intAt(s: string, from: number, to: number): number {
  const neg = s.charCodeAt(from) === 45;
  let v = 0;
  for (let i = neg ? from + 1 : from; i < to; i++) v = v * 10 + (s.charCodeAt(i) - 48);
  return neg ? -v : v;
}

export function collectionsHeader(): string {
  return COLLECTION_COLUMNS.map(plainCell).join(',') + EOL;
}

/** Writes the rows (no header) of collections created in [from, to). */
function writeCollectionRows(
  db: ReadDb,
  params: CollectionsReportParams,
  sink: LineSink,
  progress?: ProgressFn,
  total = 0,
): number {
  return collectionRowsWriter(db, params.tz)(params, sink, progress, total);
}

/** A time column's formatter (timeFormatter), and the row read again by id. */
interface RowFormat {
  created: (ms: number | null | undefined) => string;
  changed: (ms: number | null | undefined) => string;
  completed: (ms: number | null | undefined) => string;
  byId: (id: number) => ReportRow;
}

/**
 * writeCollectionRows for one connection and time zone, called once per range: an export worker writes
 * its parts of 2,048 rows with one (export-parts.ts). Its per-row functions are made once: made again for
 * each part, V8 ran each part's first rows in its interpreter again (a year's export took 60,400
 * instructions a row written in parts against 42,500 in one pass, cachegrind).
 */
export function collectionRowsWriter(
  db: ReadDb,
  tz?: TimeZoneOption,
): (range: { from?: number; to?: number }, sink: LineSink, progress?: ProgressFn, total?: number) => number {
  // One formatter per time column: each caches the minute it formatted last (see timeFormatter).
  const f: RowFormat = {
    created: timeFormatter(tz),
    changed: timeFormatter(tz),
    completed: timeFormatter(tz),
    byId: reportRowById(db),
  };
  return (range, sink, progress, total = 0) => {
    let n = 0;
    for (const s of reportLines(db, range)) {
      sink.push(AS_IS.test(s) ? asIs(s, f) : (cellByCell(s, f) ?? byValue(f.byId(idOf(s)), f)));
      if (++n % 10_000 === 0) progress?.(n, total);
    }
    return n;
  };
}

/** A row read by id, one value per column, formatted cell by cell. */
function byValue(r: ReportRow, f: RowFormat): string {
  return (
    textCell(r[0]) +
    ',' +
    textCell(r[1]) +
    ',' +
    f.created(r[2]) +
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
    f.changed(r[13]) +
    ',' +
    textCell(r[14]) +
    ',' +
    textCell(r[15]) +
    ',' +
    f.completed(r[16]) +
    ',' +
    textCell(r[17]) +
    ',' +
    textCell(r[18]) +
    ',' +
    r[19] +
    EOL
  );
}

/** The row's id: the last cell of its last run, whatever its other cells hold. */
function idOf(s: string): number {
  return Number(s.slice(s.lastIndexOf(',') + 1));
}

/** A row AS_IS matched: the separators' places, then the line from the row's own slices. */
function asIs(s: string, f: RowFormat): string {
  const a = s.indexOf('\x1f');
  const b = s.indexOf('\x1f', a + 1);
  const c = s.indexOf('\x1f', b + 1);
  const d = s.indexOf('\x1e', c + 1);
  const e = s.indexOf('\x1e', d + 1);
  const g0 = s.indexOf('\x1e', e + 1);
  const g = s.indexOf('\x1f', g0 + 1);
  const h = s.indexOf('\x1f', g + 1);
  const i = s.indexOf('\x1e', h + 1);
  const j = s.indexOf('\x1f', i + 1);
  const k = s.indexOf('\x1f', j + 1);
  return (
    s.slice(0, a) +
    ',' +
    f.created(intAt(s, a + 1, b)) +
    ',' +
    amountCell(intAt(s, b + 1, c), s.slice(c + 1, s.indexOf(',', c + 1))) +
    ',' +
    s.slice(c + 1, d) +
    ',' +
    s.slice(d + 1, e) +
    ',' +
    s.slice(e + 1, g0) +
    ',' +
    s.slice(g0 + 1, g) +
    ',' +
    f.changed(intAt(s, g + 1, h)) +
    ',' +
    s.slice(h + 1, i) +
    ',' +
    s.slice(i + 1, j) +
    ',' +
    (k === j + 1 ? '' : f.completed(intAt(s, j + 1, k))) +
    ',' +
    s.slice(k + 1) +
    EOL
  );
}

/**
 * A row with a free-text cell that needs a guard or quotes (a customer "Nakato, Sarah"): split at its
 * separators, the runs as they are when clean, each free-text cell through textCell. Null when a run is
 * not clean or a separator count is off (a cell holding one): then it is read again by id.
 */
function cellByCell(s: string, f: RowFormat): string | null {
  const p = s.split('\x1f');
  if (p.length !== 8) return null;
  const [refs, at, amount, mid, changedAt, notes, completedAt, urls] = p as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const m = mid.split('\x1e');
  const t = notes.split('\x1e');
  if (m.length !== 4 || t.length !== 2) return null;
  const [run, description, customer, contact] = m as [string, string, string, string];
  if (!RUN.refs.test(refs) || !RUN.middle.test(run) || !RUN.contact.test(contact) || !RUN.urls.test(urls)) return null;
  if (!IS_INT.test(at) || !IS_INT.test(amount) || !IS_INT.test(changedAt)) return null;
  if (completedAt !== '' && !IS_INT.test(completedAt)) return null;
  return (
    refs +
    ',' +
    f.created(intAt(at, 0, at.length)) +
    ',' +
    amountCell(intAt(amount, 0, amount.length), run.slice(0, run.indexOf(','))) +
    ',' +
    run +
    ',' +
    textCell(description) +
    ',' +
    textCell(customer) +
    ',' +
    contact +
    ',' +
    f.changed(intAt(changedAt, 0, changedAt.length)) +
    ',' +
    textCell(t[0]) +
    ',' +
    textCell(t[1]) +
    ',' +
    (completedAt === '' ? '' : f.completed(intAt(completedAt, 0, completedAt.length))) +
    ',' +
    urls +
    EOL
  );
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
