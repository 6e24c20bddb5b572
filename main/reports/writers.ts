// The two reports, streamed from SQLite (statement.iterate, raw rows) into a line sink. They run on the
// export worker (export-worker.ts) but are plain functions, so they can be called directly too.
import type { Db } from '../store/sqlite/connection.js';
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

function rangeWhere(p: { from?: number; to?: number }): { where: string; params: number[] } {
  const where: string[] = [];
  const params: number[] = [];
  if (p.from !== undefined) {
    where.push('c.created_at >= ?');
    params.push(p.from);
  }
  if (p.to !== undefined) {
    where.push('c.created_at < ?');
    params.push(p.to);
  }
  return { where: where.length ? 'WHERE ' + where.join(' AND ') : '', params };
}

const FROM = 'FROM collections c LEFT JOIN reconciliation r ON r.collection_id = c.id';
const ORDER = 'ORDER BY c.created_at, c.id';

/**
 * The same rows and columns, unformatted: what the benchmark gives the sqlite3 command as a baseline.
 * (Integers stay ms and minor units there; the report formats them.)
 */
export function collectionsBaselineQuery(p: { from?: number; to?: number } = {}): { sql: string; params: number[] } {
  const w = rangeWhere(p);
  const sql = `SELECT c.merchant_reference, c.internal_reference, c.created_at, c.amount_minor, c.currency, c.status,
  r.initiate_status, r.redirect_status, r.callback_status, r.import_status, r.manual_status, r.outcome, r.kinds,
  r.is_exception, c.charge_customer, c.allow_final_status_change, c.description, c.customer_name, c.customer_email,
  c.operator, c.provider_code, c.card_brand, c.card_last4, c.status_changed_at, c.status_message, r.resolution_note,
  r.completed_at, c.payment_url, c.redirect_url, c.id ${FROM} ${w.where} ${ORDER}`;
  return { sql, params: w.params };
}

/**
 * The report's query. Columns whose values come from a closed vocabulary (statuses checked by the
 * schema or set only to final statuses by reconciliation, outcome kinds, booleans) are joined into one
 * cell run by SQLite; free text, times and amounts are formatted (and guarded) in JS.
 */
export function collectionsQuery(p: { from?: number; to?: number }): { sql: string; params: number[] } {
  const w = rangeWhere(p);
  const opt = (x: string) => `coalesce(${x}, '')`;
  const bool = (x: string) => `(CASE WHEN ${x} IS NULL THEN '' WHEN ${x} THEN 'true' ELSE 'false' END)`;
  const vocab = [
    'c.status',
    opt('r.initiate_status'),
    opt('r.redirect_status'),
    opt('r.callback_status'),
    opt('r.import_status'),
    opt('r.manual_status'),
    opt('r.outcome'),
    // '["a","b"]' -> 'a;b'
    `replace(replace(replace(${opt('r.kinds')}, '["', ''), '"]', ''), '","', ';')`,
    bool('r.is_exception'),
    bool('c.charge_customer'),
    bool('c.allow_final_status_change'),
  ].join(" || ',' || ");
  const sql = `SELECT c.merchant_reference, c.internal_reference, c.created_at, c.amount_minor, c.currency, ${vocab} AS vocab,
  c.description, c.customer_name, c.customer_email, c.operator, c.provider_code, c.card_brand, c.card_last4,
  c.status_changed_at, c.status_message, r.resolution_note, r.completed_at, c.payment_url, c.redirect_url, c.id
  ${FROM} ${w.where} ${ORDER}`;
  return { sql, params: w.params };
}

type Row = [
  string,
  string | null,
  number,
  number,
  string,
  string,
  string,
  string | null,
  string | null,
  string,
  string | null,
  string | null,
  string | null,
  number,
  string | null,
  string | null,
  number | null,
  string | null,
  string,
  number,
];

/**
 * Runs of neighbouring text cells, joined by SQLite (concat_ws of values that are never NULL), so that a
 * row reaches JS as 14 values instead of 20 (each text value handed over costs a V8 string, ~85 ns; the
 * vocabulary cells joined with || cost SQLite an allocation per part). A run is written as it is when
 * cleanRun's pattern says none of its cells needs a guard or quotes; otherwise that row is read again by
 * id, one value per column (collectionsQuery), and formatted cell by cell.
 */
const RUNS = {
  refs: ['c.merchant_reference', 'c.internal_reference'],
  // currency and the closed-vocabulary cells (free text likely to hold a comma or a quote: description,
  // customer_name, status_message, resolution_note, comes one value per column and goes through textCell)
  middle: [
    'c.currency',
    'c.status',
    'r.initiate_status',
    'r.redirect_status',
    'r.callback_status',
    'r.import_status',
    'r.manual_status',
    'r.outcome',
    // '["a","b"]' -> 'a;b'
    `replace(replace(replace(r.kinds, '["', ''), '"]', ''), '","', ';')`,
    `(CASE WHEN r.is_exception IS NULL THEN '' WHEN r.is_exception THEN 'true' ELSE 'false' END)`,
    `(CASE WHEN c.charge_customer IS NULL THEN '' WHEN c.charge_customer THEN 'true' ELSE 'false' END)`,
    `(CASE WHEN c.allow_final_status_change IS NULL THEN '' WHEN c.allow_final_status_change THEN 'true' ELSE 'false' END)`,
  ],
  contact: ['c.customer_email', 'c.operator', 'c.provider_code', 'c.card_brand', 'c.card_last4'],
  urls: ['c.payment_url', 'c.redirect_url', 'c.id'],
} as const;

/**
 * Matches a run of exactly `cells` cells when each, as written, is its own CSV cell: no comma, quote, CR or
 * LF inside (so the commas are exactly the separators and nothing needs quotes) and no leading = + - @ TAB
 * CR (nothing to guard). Then textCell(cell) === cell for every cell and the run is the cells' CSV text.
 */
function cleanRun(cells: number): RegExp {
  const cell = '(?![=+\\-@\\t\\r])[^,"\\r\\n]*';
  return new RegExp(`^${cell}(?:,${cell}){${cells - 1}}$`);
}

function collectionsRunsQuery(p: { from?: number; to?: number }): { sql: string; params: number[] } {
  const w = rangeWhere(p);
  const run = (cells: readonly string[]) => `concat_ws(',', ${cells.map((x) => `coalesce(${x}, '')`).join(', ')})`;
  const sql = `SELECT ${run(RUNS.refs)}, c.created_at, c.amount_minor, c.currency, ${run(RUNS.middle)}, c.description, c.customer_name,
  ${run(RUNS.contact)}, c.status_changed_at, c.status_message, r.resolution_note, r.completed_at, ${run(RUNS.urls)}, c.id
  ${FROM} ${w.where} ${ORDER}`;
  return { sql, params: w.params };
}

type RunsRow = [
  string,
  number,
  number,
  string,
  string,
  string,
  string | null,
  string,
  number,
  string | null,
  string | null,
  number | null,
  string,
  number,
];

/** Counts rows the report will have. */
export function countCollections(db: Db, p: { from?: number; to?: number }): number {
  const w = rangeWhere(p);
  return db
    .prepare(`SELECT COUNT(*) FROM collections c ${w.where}`)
    .pluck()
    .get(...w.params) as number;
}

export function collectionsHeader(): string {
  return COLLECTION_COLUMNS.map(plainCell).join(',') + EOL;
}

/** Writes the rows (no header) of collections created in [from, to). */
export function writeCollectionRows(
  db: Db,
  params: CollectionsReportParams,
  sink: LineSink,
  progress?: ProgressFn,
  total = 0,
): number {
  // One formatter per time column: each caches the minute it formatted last (see timeFormatter).
  const [created, changed, completed] = [timeFormatter(params.tz), timeFormatter(params.tz), timeFormatter(params.tz)];
  const line = (r: Row) =>
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
  const one = collectionsQuery({});
  const byId = db.prepare(one.sql.replace(ORDER, '').replace(FROM, `${FROM} WHERE c.id = ?`)).raw(true);
  const [refs, middle, contact, urls] = [RUNS.refs, RUNS.middle, RUNS.contact, RUNS.urls].map((r) =>
    cleanRun(r.length),
  );
  const q = collectionsRunsQuery(params);
  let n = 0;
  for (const r of db
    .prepare(q.sql)
    .raw(true)
    .iterate(...q.params) as IterableIterator<RunsRow>) {
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
      sink.push(line(byId.get(r[13]) as Row));
    }
    if (++n % 10_000 === 0) progress?.(n, total);
  }
  return n;
}

export function writeCollectionsCsv(
  db: Db,
  params: CollectionsReportParams,
  sink: LineSink,
  progress?: ProgressFn,
): { rows: number } {
  const total = countCollections(db, params);
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
  db: Db,
  params: BalancesReportParams,
  summary: LineSink,
  snaps: LineSink,
  progress?: ProgressFn,
): { rows: number; wallets: number } {
  const time = timeFormatter(params.tz);
  const total = db
    .prepare('SELECT COUNT(*) FROM balance_snapshots WHERE observed_at >= ? AND observed_at < ?')
    .pluck()
    .get(params.from, params.to) as number;
  progress?.(0, total);
  const stats = new Map<string, WalletStats>();
  const wallets = db
    .prepare(
      'SELECT DISTINCT currency, wallet_type FROM balance_snapshots WHERE observed_at < ? ORDER BY currency, wallet_type',
    )
    .all(params.to) as { currency: string; wallet_type: string }[];
  const openingStmt = db.prepare(
    `SELECT observed_at, available_minor, uncleared_minor, reserve_minor, actual_minor FROM balance_snapshots
      WHERE currency = ? AND wallet_type = ? AND observed_at < ? ORDER BY observed_at DESC, id DESC LIMIT 1`,
  );
  for (const w of wallets) {
    const o = openingStmt.raw(true).get(w.currency, w.wallet_type, params.from) as
      [number, number, number, number, number] | undefined;
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
  const it = db
    .prepare(
      `SELECT observed_at, currency, wallet_type, available_minor, uncleared_minor, reserve_minor, actual_minor, id, poll_run_id
         FROM balance_snapshots WHERE observed_at >= ? AND observed_at < ? ORDER BY observed_at, id`,
    )
    .raw(true)
    .iterate(params.from, params.to) as IterableIterator<
    [number, string, string, number, number, number, number, number, number | null]
  >;
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
