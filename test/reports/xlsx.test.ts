// The .xlsx reports, read back by a spreadsheet library the app does not write with (test/support/xlsx.ts):
// every cell typed (amounts numbers with their currency's decimals, times dates, booleans, ids), every
// value what the CSV of the same rows says, the CSV's formula guard on text, the balance report's two
// sheets, a table continued on another sheet when one is full, progress and cancel.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { runExport, snapshotsPathFor, type ExportProgress } from '../../main/reports/index.js';
import { formatMinor } from '../../main/money/index.js';
import { XlsxBook } from '../../main/reports/xlsx-book.js';
import { writeCollectionsXlsx } from '../../main/reports/xlsx-writers.js';
import { testDb } from '../reconcile/fixtures.js';
import { balanceDay, bulk, threeCollections } from './histories.js';
import { records } from '../support/csv.js';
import { readXlsx, recordsOf, type ReadCell, type ReadSheet } from '../support/xlsx.js';

const UTC3 = { offsetMinutes: 180 };

/** The decimals a number format shows ("#,##0.00" -> 2). */
function decimalsOf(numFmt: string | undefined): number {
  const m = /\.(0+)$/.exec(numFmt ?? '');
  return m ? m[1]!.length : 0;
}

/**
 * A cell as the CSV writes the same value: a number with the decimals its format shows, a date as its
 * wall-clock time to the millisecond (the CSV's ISO text without its offset), a boolean as true/false.
 */
function asCsv(cell: ReadCell): string {
  switch (cell.type) {
    case 'empty':
      return '';
    case 'number':
      return (cell.value as number).toFixed(decimalsOf(cell.numFmt));
    case 'date':
      return (cell.value as Date).toISOString().slice(0, 23);
    default:
      return String(cell.value);
  }
}
const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})[+-]\d\d:\d\d$/;
const wallClock = (csv: string) => ISO.exec(csv)?.[1] ?? csv;

/** Every cell of the sheet equals the CSV's cell of the same row and column. */
function expectSameAsCsv(sheet: ReadSheet, csvFile: string): void {
  const csv = records(csvFile);
  const { header, records: rows } = recordsOf(sheet);
  expect(header).toEqual(Object.keys(csv[0]!));
  expect(rows).toHaveLength(csv.length);
  rows.forEach((r, i) => {
    for (const h of header) expect(asCsv(r[h]!), `row ${i + 2}, ${h}`).toBe(wallClock(csv[i]![h]!));
  });
}

const typesOf = (r: Record<string, ReadCell>) => Object.fromEntries(Object.entries(r).map(([k, c]) => [k, c.type]));

async function both(file: string, opts: Omit<Parameters<typeof runExport>[0], 'out' | 'dbFile'>, dir: string) {
  const csv = path.join(dir, 'report.csv');
  const xlsx = path.join(dir, 'report.xlsx');
  await runExport({ ...opts, dbFile: file, out: csv });
  const r = await runExport({ ...opts, dbFile: file, out: xlsx, format: 'xlsx' });
  return { csv, xlsx, result: r };
}

describe('collections .xlsx export', () => {
  it('types every cell and holds what the CSV holds: amounts, dates, booleans, guarded text', async () => {
    const { db, file, dir } = testDb();
    const { h } = threeCollections(db);
    const d = h.collection({ amountMinor: 123_456_789_012, currency: 'KES', cardLast4: '0042' });
    h.accepted(d);

    const { csv, xlsx, result } = await both(file, { job: { kind: 'collections' }, tz: UTC3, now: h.t }, dir);
    expect(result).toEqual({ files: [xlsx], rows: 4 });
    expect(fs.existsSync(xlsx + '.part')).toBe(false);
    const sheets = await readXlsx(xlsx);
    expect(sheets.map((s) => s.name)).toEqual(['Collections']);
    expectSameAsCsv(sheets[0]!, csv);

    const rows = recordsOf(sheets[0]!).records;
    expect(typesOf(rows[0]!)).toMatchObject({
      merchant_reference: 'text',
      created_at: 'date',
      amount: 'number',
      currency: 'text',
      status: 'text',
      open_exception: 'boolean',
      charge_customer: 'boolean',
      description: 'text',
      status_changed_at: 'date',
      card_last4: 'text',
      collection_id: 'number',
    });
    // Amounts: numbers with their currency's decimals.
    expect(rows.map((r) => [r.amount!.value, r.amount!.numFmt])).toEqual([
      [150_000, '#,##0'],
      [25.5, '#,##0.00'],
      [1.234, '#,##0.000'],
      [1_234_567_890.12, '#,##0.00'],
    ]);
    // Dates: the wall-clock time in the report's zone (+03:00), as the CSV's text says.
    expect(rows[0]!.created_at!.value).toEqual(new Date(Date.UTC(2026, 10, 4, 0, 30, 1)));
    expect(rows[0]!.created_at!.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    // The CSV's formula guard, on text cells that a spreadsheet could otherwise turn into a formula when edited.
    expect(rows[0]!.description!.value).toBe("'=cmd|calc!A1 order");
    expect(rows[0]!.customer_name!.value).toBe(`'+256 Jane, "JJ"`);
    expect(rows[1]!.customer_name!.value).toBe("'@admin");
    expect(rows[1]!.resolution_note!.value).toBe('Short by 0.50,\nrefund "agreed"');
    // A card's last four digits keep their leading zero (text, not a number).
    expect(rows[3]!.card_last4!.value).toBe('0042');
    expect(rows[1]!.customer_email!.type).toBe('empty');
  });

  it('writes text as it is stored: XML characters, control characters, CR, spaces at the edges, escape look-alikes', async () => {
    const { db, file, dir } = testDb();
    const t0 = Date.UTC(2026, 2, 1, 10, 0, 0);
    const hostile = [
      'a & b < c > d',
      'tab\there',
      'two\nlines',
      'cr\rhere',
      'bell\u0007 and unit sep \u001f',
      '  padded  ',
      '_x0041_ is not A',
      '=HYPERLINK("https://evil.example")',
      '-5',
      '\ttab first',
      'ünï "ü" ✓ 😀',
    ];
    const ins = db.prepare(
      `INSERT INTO collections (merchant_reference, description, customer_name, operator, redirect_url, created_at, amount_minor, currency, status, status_changed_at)
       VALUES (?, ?, ?, 'op', 'https://merchant-desk.invalid/return', ?, 100, 'KES', 'PENDING', ?)`,
    );
    hostile.forEach((v, i) => ins.run(`MD-H-${i}`, v, v, t0 + i * 1000, t0 + i * 1000));
    const { csv, xlsx } = await both(file, { job: { kind: 'collections' }, tz: UTC3 }, dir);
    const sheets = await readXlsx(xlsx);
    expectSameAsCsv(sheets[0]!, csv);
    const names = recordsOf(sheets[0]!).records.map((r) => r.customer_name!.value);
    expect(names).toEqual(hostile.map((v) => (/^[=+\-@\t\r]/.test(v) ? "'" + v : v)));
    // As ECMA-376 spells them: what XML 1.0 cannot hold as _xHHHH_, a look-alike's underscore as _x005F_.
    const xml = strFromU8(unzipSync(fs.readFileSync(xlsx))['xl/worksheets/sheet1.xml']!);
    expect(xml).toContain('<t>bell_x0007_ and unit sep _x001F_</t>');
    expect(xml).toContain('<t>_x005F_x0041_ is not A</t>');
    expect(xml).toContain('<t>cr&#13;here</t>');
    expect(xml).toContain('<t xml:space="preserve">  padded  </t>');
  });

  it('an amount is a number exactly when a spreadsheet shows it exactly, and text (the same decimal) past 15 digits', async () => {
    const { db, file, dir } = testDb();
    const t0 = Date.UTC(2026, 0, 1);
    const ins = db.prepare(
      `INSERT INTO collections (merchant_reference, description, operator, redirect_url, created_at, amount_minor, currency, status, status_changed_at)
       VALUES (?, 'd', 'op', 'https://merchant-desk.invalid/return', ?, ?, ?, 'PENDING', 0)`,
    );
    const currency = fc.constantFrom('UGX', 'KES', 'USD', 'BHD', 'XYZ');
    const amounts = fc.sample(
      fc.tuple(
        fc.oneof(
          fc.integer({ min: -1_000_000, max: 1_000_000 }),
          fc.integer({ min: 1, max: 999_999_999_999_999 }),
          fc.constantFrom(0, 1, 10, 999_999_999_999_999, 1e15, -1e15, Number.MAX_SAFE_INTEGER),
        ),
        currency,
      ),
      { numRuns: 300, seed: 42 },
    );
    db.transaction(() => amounts.forEach(([m, c], i) => ins.run(`MD-A-${i}`, t0 + i, m, c)))();
    const { csv, xlsx } = await both(file, { job: { kind: 'collections' } }, dir);
    const rows = recordsOf((await readXlsx(xlsx))[0]!).records;
    const csvRows = records(csv);
    amounts.forEach(([minor, cur], i) => {
      const cell = rows[i]!.amount!;
      const digits = String(Math.abs(minor)).length;
      if (digits > 15) {
        expect(cell, `${minor} ${cur}`).toMatchObject({ type: 'text', value: csvRows[i]!.amount });
      } else {
        expect(cell.type, `${minor} ${cur}`).toBe('number');
        // The double a spreadsheet holds, shown with the currency's decimals, is the amount itself.
        const shown = (cell.value as number).toFixed(decimalsOf(cell.numFmt));
        expect(shown, `${minor} ${cur}`).toBe(cur === 'XYZ' ? String(minor) : formatMinor(minor, cur));
        expect(shown).toBe(csvRows[i]!.amount);
      }
    });
  });

  it('continues a table on another sheet, header and all, when one is full', () => {
    const { db, dir } = testDb();
    const t0 = Date.UTC(2026, 0, 1);
    const ins = db.prepare(
      `INSERT INTO collections (merchant_reference, description, operator, redirect_url, created_at, amount_minor, currency, status, status_changed_at)
       VALUES (?, 'd', 'op', 'https://merchant-desk.invalid/return', ?, 100, 'KES', 'PENDING', 0)`,
    );
    db.transaction(() => {
      for (let i = 0; i < 11; i++) ins.run(`MD-S-${i}`, t0 + i);
    })();
    const out = path.join(dir, 'split.xlsx');
    const fd = fs.openSync(out, 'w');
    const book = new XlsxBook(fd, { sheetRows: 5 });
    expect(writeCollectionsXlsx(db, {}, book).rows).toBe(11);
    book.close();
    fs.closeSync(fd);
    return readXlsx(out).then((sheets) => {
      expect(sheets.map((s) => s.name)).toEqual(['Collections', 'Collections (2)', 'Collections (3)']);
      const refs = sheets.flatMap((s) => recordsOf(s).records.map((r) => r.merchant_reference!.value));
      expect(refs).toEqual(Array.from({ length: 11 }, (_, i) => `MD-S-${i}`));
      for (const s of sheets) expect(s.rows[0]![0]!.value).toBe('merchant_reference');
    });
  });

  it(
    'reports progress, can be cancelled (the partial file removed), and refuses a byte-order mark',
    { timeout: 120_000 },
    async () => {
      const { db, file, dir } = testDb();
      bulk(db, 60_000, Date.UTC(2026, 0, 1));
      const out = path.join(dir, 'big.xlsx');
      const seen: ExportProgress[] = [];
      const res = await runExport({
        dbFile: file,
        job: { kind: 'collections' },
        out,
        format: 'xlsx',
        onProgress: (p) => seen.push(p),
      });
      expect(res.rows).toBe(60_000);
      const writing = seen.filter((p) => p.phase === 'writing');
      expect(writing.at(-1)).toEqual({ phase: 'writing', done: 60_000, total: 60_000 });
      expect(writing.map((p) => p.done)).toEqual([...writing.map((p) => p.done)].sort((x, y) => x - y));
      // Read back as XML (a spreadsheet library takes minutes over 60,000 rows here): every row, in order.
      const sheet = strFromU8(unzipSync(fs.readFileSync(out))['xl/worksheets/sheet1.xml']!);
      const refs = [...sheet.matchAll(/<c r="A\d+" t="inlineStr"><is><t>(MD-BULK-\d+)<\/t>/g)].map((m) => m[1]);
      expect(refs).toEqual(Array.from({ length: 60_000 }, (_, i) => `MD-BULK-${i}`));

      const out2 = path.join(dir, 'cancelled.xlsx');
      const ac = new AbortController();
      let partSeen = false;
      const run = runExport({
        dbFile: file,
        job: { kind: 'collections' },
        out: out2,
        format: 'xlsx',
        signal: ac.signal,
        onProgress: (p) => {
          if (p.phase === 'writing' && p.done > 0 && !ac.signal.aborted) {
            partSeen = fs.existsSync(out2 + '.part');
            ac.abort();
          }
        },
      });
      await expect(run).rejects.toMatchObject({ kind: 'cancelled' });
      expect(partSeen).toBe(true);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('cancelled'))).toEqual([]);

      await expect(
        runExport({ dbFile: file, job: { kind: 'collections' }, out: out2, format: 'xlsx', bom: true }),
      ).rejects.toMatchObject({ kind: 'validation', field: 'bom' });
    },
  );
});

describe('balance report .xlsx', () => {
  it('one workbook: the summary sheet, then the snapshots sheet, each what its CSV file holds', async () => {
    const { db, file, dir } = testDb();
    const { day } = balanceDay(db);
    const job = { kind: 'balances' as const, from: day, to: day + 86_400_000 };
    const { csv, xlsx, result } = await both(file, { job, tz: { offsetMinutes: 0 } }, dir);
    expect(result).toEqual({ files: [xlsx], rows: 5 });
    const sheets = await readXlsx(xlsx);
    expect(sheets.map((s) => s.name)).toEqual(['Summary', 'Snapshots']);
    expectSameAsCsv(sheets[0]!, csv);
    expectSameAsCsv(sheets[1]!, snapshotsPathFor(csv));
    const kes = recordsOf(sheets[0]!).records.find(
      (r) => r.currency!.value === 'KES' && r.balance!.value === 'actual',
    )!;
    expect(typesOf(kes)).toMatchObject({
      opening: 'number',
      change: 'number',
      opening_observed_at: 'date',
      snapshots_in_range: 'number',
    });
    expect([kes.opening!.value, kes.closing!.value, kes.change!.value, kes.change!.numFmt]).toEqual([
      100,
      200,
      100,
      '#,##0.00',
    ]);
    const ugx = recordsOf(sheets[0]!).records.find(
      (r) => r.currency!.value === 'UGX' && r.balance!.value === 'actual',
    )!;
    expect([ugx.opening!.value, ugx.opening!.numFmt]).toEqual([700_000, '#,##0']);
  });
});
