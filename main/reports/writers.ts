// The two reports, streamed from SQLite (statement.iterate, raw rows) into a line sink. They run on the
// export worker (export-worker.ts) but are plain functions, so they can be called directly too.
import type { Db } from '../store/db.js';
import { amountCell, boolCell, EOL, LineBuffer, numberCell, plainCell, textCell, timeFormatter, type TimeZoneOption } from './csv.js';

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
  'description',
  'customer_name',
  'customer_email',
  'charge_customer',
  'allow_final_status_change',
  'operator',
  'provider_code',
  'card_brand',
  'card_last4',
  'status',
  'status_changed_at',
  'status_message',
  'initiate_status',
  'redirect_status',
  'callback_status',
  'import_status',
  'manual_status',
  'reconciliation_outcome',
  'reconciliation_kinds',
  'open_exception',
  'resolution_note',
  'completed_at',
  'payment_url',
  'redirect_url',
  'collection_id',
] as const;

/** The query behind the collections CSV (the benchmark runs the same one through the sqlite3 command). */
export function collectionsQuery(p: { from?: number; to?: number }): { sql: string; params: number[] } {
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
  const sql = `SELECT c.merchant_reference, c.internal_reference, c.created_at, c.amount_minor, c.currency, c.description,
  c.customer_name, c.customer_email, c.charge_customer, c.allow_final_status_change, c.operator, c.provider_code,
  c.card_brand, c.card_last4, c.status, c.status_changed_at, c.status_message, r.initiate_status, r.redirect_status,
  r.callback_status, r.import_status, r.manual_status, r.outcome, r.kinds, r.is_exception, r.resolution_note,
  r.completed_at, c.payment_url, c.redirect_url, c.id
FROM collections c LEFT JOIN reconciliation r ON r.collection_id = c.id
${where.length ? 'WHERE ' + where.join(' AND ') : ''}
ORDER BY c.created_at, c.id`;
  return { sql, params };
}

type Row = [
  string, string | null, number, number, string, string, string | null, string | null, number, number, string, string | null,
  string | null, string | null, string, number, string | null, string | null, string | null, string | null, string | null,
  string | null, string | null, string | null, number | null, string | null, number | null, string | null, string, number,
];

function kindsText(json: string | null): string {
  if (!json) return '';
  // '["amount_mismatch","final_status_changed"]' -> 'amount_mismatch;final_status_changed' (our own vocabulary)
  return json.slice(2, -2).split('","').join(';');
}

export function writeCollectionsCsv(
  db: Db,
  params: CollectionsReportParams,
  write: (chunk: string) => void,
  progress?: ProgressFn,
): { rows: number } {
  const q = collectionsQuery(params);
  const countSql = `SELECT COUNT(*) FROM collections c ${q.sql.includes('WHERE') ? q.sql.slice(q.sql.indexOf('WHERE'), q.sql.indexOf('ORDER BY')) : ''}`;
  const total = db.prepare(countSql).pluck().get(...q.params) as number;
  const time = timeFormatter(params.tz);
  const out = new LineBuffer(write);
  out.push(COLLECTION_COLUMNS.map(plainCell).join(',') + EOL);
  progress?.(0, total);
  let n = 0;
  for (const r of db.prepare(q.sql).raw(true).iterate(...q.params) as IterableIterator<Row>) {
    const cur = r[4];
    out.push(
      textCell(r[0]) + ',' + textCell(r[1]) + ',' + time(r[2]) + ',' + amountCell(r[3], cur) + ',' + textCell(cur) + ',' +
        textCell(r[5]) + ',' + textCell(r[6]) + ',' + textCell(r[7]) + ',' + boolCell(r[8]) + ',' + boolCell(r[9]) + ',' +
        textCell(r[10]) + ',' + textCell(r[11]) + ',' + textCell(r[12]) + ',' + textCell(r[13]) + ',' + textCell(r[14]) + ',' +
        time(r[15]) + ',' + textCell(r[16]) + ',' + textCell(r[17]) + ',' + textCell(r[18]) + ',' + textCell(r[19]) + ',' +
        textCell(r[20]) + ',' + textCell(r[21]) + ',' + textCell(r[22]) + ',' + plainCell(kindsText(r[23])) + ',' +
        boolCell(r[24]) + ',' + textCell(r[25]) + ',' + time(r[26]) + ',' + textCell(r[27]) + ',' + textCell(r[28]) + ',' +
        numberCell(r[29]) + EOL,
    );
    if (++n % 10_000 === 0) progress?.(n, total);
  }
  out.flush();
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
  writeSummary: (chunk: string) => void,
  writeSnapshots: (chunk: string) => void,
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
    .prepare('SELECT DISTINCT currency, wallet_type FROM balance_snapshots WHERE observed_at < ? ORDER BY currency, wallet_type')
    .all(params.to) as { currency: string; wallet_type: string }[];
  const openingStmt = db.prepare(
    `SELECT observed_at, available_minor, uncleared_minor, reserve_minor, actual_minor FROM balance_snapshots
      WHERE currency = ? AND wallet_type = ? AND observed_at < ? ORDER BY observed_at DESC, id DESC LIMIT 1`,
  );
  for (const w of wallets) {
    const o = openingStmt.raw(true).get(w.currency, w.wallet_type, params.from) as [number, number, number, number, number] | undefined;
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

  const snaps = new LineBuffer(writeSnapshots);
  snaps.push(BALANCE_SNAPSHOT_COLUMNS.map(plainCell).join(',') + EOL);
  let n = 0;
  const it = db
    .prepare(
      `SELECT observed_at, currency, wallet_type, available_minor, uncleared_minor, reserve_minor, actual_minor, id, poll_run_id
         FROM balance_snapshots WHERE observed_at >= ? AND observed_at < ? ORDER BY observed_at, id`,
    )
    .raw(true)
    .iterate(params.from, params.to) as IterableIterator<[number, string, string, number, number, number, number, number, number | null]>;
  for (const r of it) {
    const [at, cur, wt] = r;
    const values = [r[3], r[4], r[5], r[6]];
    snaps.push(
      time(at) + ',' + textCell(cur) + ',' + textCell(wt) + ',' + values.map((v) => amountCell(v, cur)).join(',') + ',' + r[7] + ',' + numberCell(r[8]) + EOL,
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

  const summary = new LineBuffer(writeSummary);
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
