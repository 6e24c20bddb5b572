// The reports as .xlsx workbooks (xlsx-book.ts), with the CSV's columns and values in typed cells
// (xlsx-cells.ts): the collections report on one sheet (more past a sheet's million rows), the balance
// report's summary and snapshots as two sheets of one workbook (the CSV writes two files). Like the CSV
// writers they are plain functions the export worker runs (export-worker.ts).
import type { Db, ReadDb } from '../store/sqlite/connection.js';
import type { SnapshotRow } from '../store/sqlite/read/balances-report.js';
import { partEnd, reportRowCount, reportRows, type ReportRow } from '../store/sqlite/read/collections-report.js';
import { readTransaction } from '../store/sqlite/transaction.js';
import { offsetFinder, timeFormatter, type ProgressFn, type TimeZoneOption } from './csv.js';
import { COLLECTION_COLUMNS, type CollectionsReportParams } from './writers.js';
import {
  BALANCE_SNAPSHOT_COLUMNS,
  BALANCE_SUMMARY_COLUMNS,
  walkBalances,
  type BalancesReportParams,
} from './balances-writer.js';
import { claimPart, newPartsState, partsState, PART_ROWS } from './export-parts.js';
import { amountCellXml, booleanCellXml, columnName, integerCellXml, textCellXml, timeCellXml } from './xlsx-cells.js';
import type { Column, XlsxBook } from './xlsx-book.js';

type Kind = 'text' | 'time' | 'amount' | 'bool' | 'int';
const WIDTH: Record<Kind, number> = { text: 18, time: 20, amount: 15, bool: 10, int: 12 };
const WIDER: Record<string, number> = {
  merchant_reference: 26,
  internal_reference: 26,
  description: 30,
  customer_name: 24,
  customer_email: 28,
  status_message: 30,
  resolution_note: 30,
  payment_url: 36,
  redirect_url: 36,
};
const columnsOf = (names: readonly string[], kinds: Record<string, Kind>): Column[] =>
  names.map((header) => ({ header, width: WIDER[header] ?? WIDTH[kinds[header] ?? 'text'] }));

/** The column letters of a table, once. */
const letters = (n: number) => Array.from({ length: n }, (_, i) => columnName(i));

/** Formats one time column: its serial in the report's time zone, or the CSV's text when it is no date. */
function timeColumn(tz: TimeZoneOption | undefined): (ref: string, ms: unknown) => string {
  const offset = offsetFinder(tz);
  const iso = timeFormatter(tz);
  return (ref, ms) =>
    timeCellXml(ref, ms, typeof ms === 'number' && Number.isFinite(ms) ? offset(ms) : 0, () => iso(ms as number));
}

const COLLECTION_KINDS: Record<string, Kind> = {
  created_at: 'time',
  status_changed_at: 'time',
  completed_at: 'time',
  amount: 'amount',
  open_exception: 'bool',
  charge_customer: 'bool',
  allow_final_status_change: 'bool',
  collection_id: 'int',
};

/** The closed-vocabulary cells the query joins in a row's index 5: statuses, outcome, kinds, then three booleans. */
const VOCAB_CELLS = 11;
const VOCAB_BOOLEANS = 8;

/**
 * The collections report into `book`: the rows of [from, to), read in parts of PART_ROWS rows (each in a
 * read transaction of its own, as the CSV reads them: a long read would keep the WAL from being
 * checkpointed for the whole export).
 */
export function writeCollectionsXlsx(
  db: Db,
  params: CollectionsReportParams,
  book: XlsxBook,
  progress?: ProgressFn,
): { rows: number } {
  const range = {
    ...(params.from !== undefined ? { from: params.from } : {}),
    ...(params.to !== undefined ? { to: params.to } : {}),
  };
  const total = reportRowCount(db, range);
  progress?.(0, total);
  const table = book.table('Collections', columnsOf(COLLECTION_COLUMNS, COLLECTION_KINDS));
  const col = letters(COLLECTION_COLUMNS.length);
  const created = timeColumn(params.tz);
  const changed = timeColumn(params.tz);
  const completed = timeColumn(params.tz);
  const row = (r: ReportRow): void => {
    const n = table.next();
    const at = (i: number) => col[i]! + n;
    const vocab = r[5].split(',');
    let xml = `<row r="${n}">` + textCellXml(at(0), r[0]) + textCellXml(at(1), r[1]) + created(at(2), r[2]);
    xml += amountCellXml(at(3), r[3], r[4]) + textCellXml(at(4), r[4]);
    for (let i = 0; i < VOCAB_CELLS; i++) {
      const v = vocab[i] ?? '';
      xml += i < VOCAB_BOOLEANS ? textCellXml(at(5 + i), v) : booleanCellXml(at(5 + i), v);
    }
    for (let i = 6; i <= 12; i++) xml += textCellXml(at(i + 10), r[i] as string | null);
    xml += changed(at(23), r[13]) + textCellXml(at(24), r[14]) + textCellXml(at(25), r[15]);
    xml += completed(at(26), r[16]) + textCellXml(at(27), r[17]) + textCellXml(at(28), r[18]);
    table.push(xml + integerCellXml(at(29), r[19]) + '</row>');
  };
  const state = partsState(newPartsState(range.from, 0));
  let n = 0;
  for (;;) {
    const part = claimPart(state, range.to, (from) => partEnd(db, from, range.to, PART_ROWS));
    if (!part) break;
    n += readTransaction(db, () => {
      let rows = 0;
      for (const r of reportRows(db, {
        ...(part.from !== undefined ? { from: part.from } : {}),
        ...(part.to !== undefined ? { to: part.to } : {}),
      })) {
        row(r);
        rows++;
      }
      return rows;
    });
    progress?.(n, Math.max(n, total));
  }
  table.end();
  progress?.(n, n);
  return { rows: n };
}

const SNAPSHOT_KINDS: Record<string, Kind> = {
  observed_at: 'time',
  available: 'amount',
  uncleared: 'amount',
  reserve: 'amount',
  actual: 'amount',
  snapshot_id: 'int',
  poll_run_id: 'int',
};
const SUMMARY_KINDS: Record<string, Kind> = {
  opening: 'amount',
  closing: 'amount',
  lowest: 'amount',
  highest: 'amount',
  change: 'amount',
  opening_observed_at: 'time',
  closing_observed_at: 'time',
  snapshots_in_range: 'int',
};

/**
 * The balance report into `book`: the sheet "Summary" first in the workbook, then "Snapshots" (written
 * first: the summary is made while the snapshots are read, in one read transaction, as the CSV does).
 */
export function writeBalancesXlsx(
  db: ReadDb,
  params: BalancesReportParams,
  book: XlsxBook,
  progress?: ProgressFn,
): { rows: number } {
  const snaps = book.table('Snapshots', columnsOf(BALANCE_SNAPSHOT_COLUMNS, SNAPSHOT_KINDS), 1);
  const sc = letters(BALANCE_SNAPSHOT_COLUMNS.length);
  const observed = timeColumn(params.tz);
  const r = walkBalances(
    db,
    params,
    (s: SnapshotRow) => {
      const n = snaps.next();
      const cur = s[1];
      snaps.push(
        `<row r="${n}">` +
          observed(sc[0]! + n, s[0]) +
          textCellXml(sc[1]! + n, cur) +
          textCellXml(sc[2]! + n, s[2]) +
          amountCellXml(sc[3]! + n, s[3], cur) +
          amountCellXml(sc[4]! + n, s[4], cur) +
          amountCellXml(sc[5]! + n, s[5], cur) +
          amountCellXml(sc[6]! + n, s[6], cur) +
          integerCellXml(sc[7]! + n, s[7]) +
          integerCellXml(sc[8]! + n, s[8]) +
          '</row>',
      );
    },
    progress,
  );
  snaps.end();

  const summary = book.table('Summary', columnsOf(BALANCE_SUMMARY_COLUMNS, SUMMARY_KINDS), 0);
  const c = letters(BALANCE_SUMMARY_COLUMNS.length);
  const opened = timeColumn(params.tz);
  const closed = timeColumn(params.tz);
  for (const l of r.summary) {
    const n = summary.next();
    const cur = l.currency;
    summary.push(
      `<row r="${n}">` +
        textCellXml(c[0]! + n, cur) +
        textCellXml(c[1]! + n, l.walletType) +
        textCellXml(c[2]! + n, l.balance) +
        amountCellXml(c[3]! + n, l.opening, cur) +
        amountCellXml(c[4]! + n, l.closing, cur) +
        amountCellXml(c[5]! + n, l.lowest, cur) +
        amountCellXml(c[6]! + n, l.highest, cur) +
        amountCellXml(c[7]! + n, l.closing - l.opening, cur) +
        opened(c[8]! + n, l.openingAt) +
        closed(c[9]! + n, l.closingAt) +
        integerCellXml(c[10]! + n, l.snapshots) +
        '</row>',
    );
  }
  summary.end();
  progress?.(r.rows, r.rows);
  return { rows: r.rows };
}
