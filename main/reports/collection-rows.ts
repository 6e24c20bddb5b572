// The collections report's rows: each reportLines row (the store's, collections-report.ts) made a CSV line
// as it is when its cells are clean, cell by cell when a free-text cell needs a guard or quotes, or from
// the row read again by id. The per-row loop and its three ways to write a row stay in one module.
import type { ReadDb } from '../store/sqlite/connection.js';
import { LINE_RUNS, reportLines, reportRowById, type ReportRow } from '../store/sqlite/read/collections-report.js';
import {
  amountCell,
  EOL,
  textCell,
  timeFormatter,
  type LineSink,
  type ProgressFn,
  type TimeZoneOption,
} from './csv.js';

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
