import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import {
  amountCell,
  runExport,
  textCell,
  snapshotsPathFor,
  timeFormatter,
  writeCollectionsCsv,
  type ExportProgress,
} from '../../main/reports/index.js';
import { StringSink } from '../../main/reports/csv.js';
import { collectionsBaselineQuery, partEnd } from '../../main/store/sqlite/read/collections-report.js';
import { claimPart, newPartsState, partsState } from '../../main/reports/export-parts.js';
import { testDb, reconciler } from '../reconcile/fixtures.js';
import { balanceDay, bulk, threeCollections } from './histories.js';

import { records } from '../support/csv.js';
const UTC3 = { offsetMinutes: 180 };

describe('collections CSV export', () => {
  it('writes every field, each source status, the reconciliation outcome and the resolution note', async () => {
    const { db, file, dir } = testDb();
    const { h } = threeCollections(db);

    const out = path.join(dir, 'collections.csv');
    const res = await runExport({ dbFile: file, job: { kind: 'collections' }, out, bom: true, tz: UTC3, now: h.t });
    expect(res).toEqual({ files: [out], rows: 3 });
    const bytes = fs.readFileSync(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(fs.existsSync(out + '.part')).toBe(false);
    const rows = records(out);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({
      merchant_reference: expect.stringMatching(/^MD-TEST-/),
      amount: '150000',
      currency: 'UGX',
      description: "'=cmd|calc!A1 order",
      customer_name: `'+256 Jane, "JJ"`,
      created_at: '2026-11-04T00:30:01.000+03:00',
      initiate_status: 'PENDING',
      redirect_status: 'COMPLETED',
      callback_status: 'COMPLETED',
      reconciliation_outcome: 'matched',
      open_exception: 'false',
      charge_customer: 'false',
      card_last4: '4242',
    });
    expect(rows[1]).toMatchObject({
      amount: '25.50',
      currency: 'USD',
      customer_name: "'@admin",
      customer_email: '',
      reconciliation_outcome: 'amount_mismatch',
      reconciliation_kinds: 'amount_mismatch',
      open_exception: 'false',
      resolution_note: 'Short by 0.50,\nrefund "agreed"',
    });
    expect(rows[1]!.completed_at).toMatch(/^2026-11-04T00:30:\d\d\.000\+03:00$/);
    expect(rows[2]).toMatchObject({
      amount: '1.234',
      currency: 'BHD',
      customer_name: 'Ünïcødé Ltd',
      reconciliation_outcome: 'rejected',
    });
    // numbers are plain, unquoted, never prefixed
    expect(bytes.toString('utf8')).toContain(',25.50,USD,');
  });

  it('without --bom the file starts with the header; a date range limits the rows', async () => {
    const { db, file, dir } = testDb();
    const t0 = Date.UTC(2026, 0, 1);
    bulk(db, 10, t0);
    const out = path.join(dir, 'some.csv');
    const res = await runExport({
      dbFile: file,
      job: { kind: 'collections', from: t0 + 3000, to: t0 + 6000 },
      out,
      tz: UTC3,
    });
    expect(res.rows).toBe(3);
    const text = fs.readFileSync(out, 'utf8');
    expect(text.startsWith('merchant_reference,')).toBe(true);
    expect(records(out).map((r) => r.merchant_reference)).toEqual(['MD-BULK-3', 'MD-BULK-4', 'MD-BULK-5']);
    expect(records(out)[0]!.customer_name).toBe('Bulk, "Customer"');
  });

  it('a large-ish export reports progress; cancelling removes the partial file', async () => {
    const { db, file, dir } = testDb();
    bulk(db, 120_000, Date.UTC(2026, 0, 1));
    const out = path.join(dir, 'big.csv');
    const seen: ExportProgress[] = [];
    const res = await runExport({ dbFile: file, job: { kind: 'collections' }, out, onProgress: (p) => seen.push(p) });
    expect(res.rows).toBe(120_000);
    const writing = seen.filter((p) => p.phase === 'writing');
    expect(writing.length).toBeGreaterThanOrEqual(2);
    expect(writing.at(-1)).toEqual({ phase: 'writing', done: 120_000, total: 120_000 });
    expect(writing.map((p) => p.done)).toEqual([...writing.map((p) => p.done)].sort((x, y) => x - y));
    // split across worker threads, the file is byte for byte what one pass writes
    const one = new StringSink();
    writeCollectionsCsv(db, {}, one);
    expect(fs.readFileSync(out, 'utf8')).toBe(one.text());
    expect(one.text().split('\r\n')[120_000]!.startsWith('MD-BULK-119999,')).toBe(true);

    const out2 = path.join(dir, 'cancelled.csv');
    const ac = new AbortController();
    // The segments are written in parallel, each to its own partial file (FILE.part, FILE.part1, ...):
    // whichever reports first, some partial file is there; after the cancel, none is.
    const partials = () => fs.readdirSync(dir).filter((f) => f.startsWith('cancelled.csv.part'));
    let partSeen = false;
    const run = runExport({
      dbFile: file,
      job: { kind: 'collections' },
      out: out2,
      signal: ac.signal,
      onProgress: (p) => {
        if (p.phase === 'writing' && p.done > 0 && !ac.signal.aborted) {
          partSeen = partials().length > 0;
          ac.abort();
        }
      },
    });
    await expect(run).rejects.toMatchObject({ kind: 'cancelled' });
    expect(partSeen).toBe(true);
    expect(fs.existsSync(out2)).toBe(false);
    expect(partials()).toEqual([]);
  });

  it('a value needing quotes or a formula guard in any text column is written as csv-stringify writes it', async () => {
    const { db, file, dir } = testDb();
    const t0 = Date.UTC(2026, 2, 1, 10, 0, 0);
    const text = [
      'merchant_reference',
      'internal_reference',
      'description',
      'customer_name',
      'customer_email',
      'operator',
      'provider_code',
      'card_brand',
      'card_last4',
      'status_message',
      'payment_url',
      'redirect_url',
    ] as const;
    const hostile = [
      'a,b',
      'say "hi"',
      'two\nlines',
      'cr\rhere',
      '=1+1',
      '-5',
      '+256',
      '@x',
      '\tt',
      '\rr',
      'ünï, "ü"',
      '',
    ];
    const ins = db.prepare(
      `INSERT INTO collections (${text.join(', ')}, created_at, amount_minor, currency, status, status_changed_at)
       VALUES (${text.map(() => '?').join(', ')}, ?, ?, 'KES', 'PENDING', ?)`,
    );
    let n = 0;
    db.transaction(() => {
      const plain = (col: string, i: number) =>
        col === 'merchant_reference'
          ? `MD-H-${i}`
          : col === 'description' || col === 'operator' || col === 'redirect_url'
            ? 'x'
            : `${col} ${i}`;
      for (const col of text) {
        for (const bad of hostile) {
          const i = n++;
          const values = text.map((c) =>
            c === col ? (c === 'merchant_reference' ? `${bad}#${i}` : bad) : plain(c, i),
          );
          ins.run(...values, t0 + i * 61_000, 1000 + i, t0 + i * 61_000 + 5);
        }
      }
      for (let i = 0; i < 50; i++) {
        const k = n++;
        ins.run(...text.map((c) => plain(c, k)), t0 + k * 61_000, 1000 + k, t0 + k * 61_000 + 5); // clean rows in between
      }
    })();
    reconciler.due(db, { now: t0 + n * 61_000, stalePendingAfterMs: 60_000 });
    const out = path.join(dir, 'hostile.csv');
    await runExport({ dbFile: file, job: { kind: 'collections' }, out, tz: UTC3, now: t0 + n * 61_000 });

    const time = timeFormatter(UTC3);
    const bool = (v: unknown) => (v === null ? '' : v ? 'true' : 'false');
    const cells = (db.prepare(collectionsBaselineQuery().sql).raw(true).all() as unknown[][]).map((r) => {
      const v = r.map((x) => (x === null ? '' : x)) as string[];
      const kinds = r[12] === null ? '' : (JSON.parse(r[12] as string) as string[]).join(';');
      return [
        v[0],
        v[1],
        time(r[2] as number),
        amountCell(r[3] as number, r[4] as string),
        v[4],
        v[5],
        v[6],
        v[7],
        v[8],
        v[9],
        v[10],
        v[11],
        kinds,
        bool(r[13]),
        bool(r[14]),
        bool(r[15]),
        v[16],
        v[17],
        v[18],
        v[19],
        v[20],
        v[21],
        v[22],
        time(r[23] as number),
        v[24],
        v[25],
        time(r[26] as number | null),
        v[27],
        v[28],
        String(r[29]),
      ];
    });
    const header = fs.readFileSync(out, 'utf8').split('\r\n')[0]!.split(',');
    const expected = stringify([header, ...cells], {
      record_delimiter: 'windows',
      quote_record_delimiter: true,
      escape_formulas: true,
    });
    expect(cells).toHaveLength(n);
    expect(fs.readFileSync(out, 'utf8')).toBe(expected);
  });

  it('any row, as the report formats it cell by cell: the one-text rows, the rows with cells to quote, the rows read again', () => {
    // Whatever a row holds (separators of the one-text row, commas, quotes, line breaks, formula
    // characters, accents, empty and NULL cells, times and amounts that are not integers, unknown and
    // empty currencies), its line is what csv-stringify writes for its cells, as the report defines them.
    const { db } = testDb();
    const texts = [
      'plain',
      'Nakato, Sarah',
      'Peter "PK" Kamau',
      'two\nlines',
      'cr\rhere',
      '=1+1',
      '-5',
      '+256',
      '@x',
      '\tt',
      'ünï, "ü" ✓',
      'a\u001fb',
      'a\u001eb',
      '\u001f',
      '',
    ];
    // Mostly clean cells (as a year's rows are), so that every path is taken: rows written as they are,
    // rows with a cell to quote or guard, rows read again.
    const cell = fc.oneof(
      { arbitrary: fc.constantFrom('plain', 'Okello James', 'a@b.example', 'https://x.example/p?q=1'), weight: 12 },
      { arbitrary: fc.constantFrom(...texts), weight: 1 },
    );
    const text = fc.option(cell, { nil: null, freq: 4 });
    const time = fc.oneof(
      { arbitrary: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }), weight: 8 },
      fc.constant(-86_400_001),
      fc.constant(1.5e12 + 0.25),
    );
    const columns = [
      'internal_reference',
      'description',
      'customer_name',
      'customer_email',
      'operator',
      'provider_code',
      'redirect_url',
      'card_brand',
      'card_last4',
      'status_message',
      'payment_url',
    ] as const;
    const NOT_NULL = new Set<string>(['description', 'operator', 'redirect_url']);
    const ins = db.prepare(
      `INSERT INTO collections (merchant_reference, ${columns.join(', ')}, created_at, amount_minor, currency, status, status_changed_at)
       VALUES (?, ${columns.map(() => '?').join(', ')}, ?, ?, ?, ?, ?)`,
    );
    const rec = db.prepare(
      `INSERT INTO reconciliation (collection_id, outcome, kinds, open_kinds, is_exception, computed_at, resolution_note, callback_status, completed_at)
       VALUES (?, ?, ?, '[]', ?, 0, ?, ?, ?)`,
    );
    const bool = (v: unknown) => (v === null ? '' : v ? 'true' : 'false');
    const time3 = timeFormatter(UTC3);
    let round = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            ref: fc.oneof(
              { arbitrary: fc.constant('MD-1'), weight: 8 },
              fc.constantFrom(...texts.filter((t) => t !== '')),
            ),
            cells: fc.tuple(...columns.map((c) => (NOT_NULL.has(c) ? cell : text))),
            createdAt: time,
            changedAt: time,
            // '' stored as text in the integer column: read again by id, as the report always wrote it.
            completedAt: fc.option(fc.oneof(time, fc.constant('')), { nil: null }),
            amount: fc.oneof(
              { arbitrary: fc.integer({ min: -1_000_000, max: 1_000_000 }), weight: 8 },
              fc.constant(2 ** 53 + 2),
              fc.constant(7.5),
            ),
            currency: fc.oneof(
              { arbitrary: fc.constantFrom('KES', 'UGX', 'KWD'), weight: 8 },
              fc.constantFrom('XYZ', '', '=KES', 'K,ES'),
            ),
            recon: fc.option(
              fc.record({
                kinds: fc.constantFrom('[]', '["matched"]', '["amount_mismatch","stale_pending"]'),
                note: text,
                exception: fc.boolean(),
              }),
              { nil: null },
            ),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        (rows) => {
          db.exec('DELETE FROM reconciliation; DELETE FROM collections;');
          rows.forEach((r, i) => {
            const id = Number(
              ins.run(`${r.ref}#${round}.${i}`, ...r.cells, r.createdAt, r.amount, r.currency, 'PENDING', r.changedAt)
                .lastInsertRowid,
            );
            if (r.recon)
              rec.run(
                id,
                'matched',
                r.recon.kinds,
                r.recon.exception ? 1 : 0,
                r.recon.note,
                'COMPLETED',
                r.completedAt,
              );
          });
          round++;
          const cells = (db.prepare(collectionsBaselineQuery().sql).raw(true).all() as unknown[][]).map((r) => {
            const v = r.map((x) => (x === null ? '' : x)) as string[];
            // The kinds as SQLite's replace() makes them ('["a","b"]' -> 'a;b', an empty '[]' as it is).
            const kinds =
              r[12] === null ? '' : (r[12] as string).split('["').join('').split('"]').join('').split('","').join(';');
            const t = (x: unknown) => time3(x as number | null);
            return [
              v[0],
              v[1],
              t(r[2]),
              amountCell(r[3] as number, r[4] as string),
              v[4],
              v[5],
              v[6],
              v[7],
              v[8],
              v[9],
              v[10],
              v[11],
              kinds,
              bool(r[13]),
              bool(r[14]),
              bool(r[15]),
              v[16],
              v[17],
              v[18],
              v[19],
              v[20],
              v[21],
              v[22],
              t(r[23]),
              v[24],
              v[25],
              t(r[26]),
              v[27],
              v[28],
              String(r[29]),
            ];
          });
          // Text cells guarded and quoted as csv-stringify does (textCell, test/reports/csv.test.ts); times,
          // amounts, the id and the vocabulary cells as they are.
          const TEXT = new Set([0, 1, 4, 16, 17, 18, 19, 20, 21, 22, 24, 25, 27, 28]);
          const sheet = cells.map((c) => c.map((v, i) => (TEXT.has(i) ? textCell(v) : v)).join(',') + '\r\n').join('');
          const got = new StringSink();
          writeCollectionsCsv(db, { tz: UTC3 }, got);
          expect(got.text().slice(got.text().indexOf('\r\n') + 2)).toBe(sheet);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('cuts a large export into parts by time, each time in exactly one part, in order, however many rows share a time', () => {
    const { db } = testDb();
    const ins = db.prepare(
      `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, operator, redirect_url, status, status_changed_at)
       VALUES (?, ?, 1, 'KES', 'd', 'op', 'https://merchant-desk.invalid/return', 'PENDING', 0)`,
    );
    // Runs of ties longer than a part, single rows between them, a REAL time and one that is not a number.
    const times: unknown[] = [];
    for (let i = 0; i < 50; i++) times.push(1000 + (i % 7 === 0 ? 0 : i));
    for (let i = 0; i < 9; i++) times.push(2000);
    times.push(2000.5, 3000, 3001, 'not a time');
    db.transaction(() => times.forEach((t, i) => ins.run(`MD-T-${i}`, t)))();
    const all = db.prepare('SELECT id FROM collections ORDER BY created_at, id').pluck().all();
    for (const [from, to] of [
      [undefined, undefined],
      [1010, undefined],
      [undefined, 3001],
      [1001, 2001],
    ] as const) {
      const state = partsState(newPartsState(from, 0));
      const ids: unknown[] = [];
      let index = 0;
      for (
        let part = claimPart(state, to, (f) => partEnd(db, f, to, 4));
        part;
        part = claimPart(state, to, (f) => partEnd(db, f, to, 4))
      ) {
        expect(part.index).toBe(index++);
        const w = [
          part.from !== undefined ? 'created_at >= @from' : '1',
          part.to !== undefined ? 'created_at < @to' : '1',
        ];
        ids.push(
          ...db
            .prepare(`SELECT id FROM collections WHERE ${w.join(' AND ')} ORDER BY created_at, id`)
            .pluck()
            .all({
              ...(part.from !== undefined ? { from: part.from } : {}),
              ...(part.to !== undefined ? { to: part.to } : {}),
            }),
        );
      }
      const want = db
        .prepare(
          `SELECT id FROM collections WHERE ${from !== undefined ? 'created_at >= @from' : '1'} AND ${to !== undefined ? 'created_at < @to' : '1'} ORDER BY created_at, id`,
        )
        .pluck()
        .all({ ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) });
      expect(ids).toEqual(want);
      expect(index).toBeGreaterThan(to === undefined && from === undefined ? 10 : 2);
    }
    expect(all).toHaveLength(times.length);
  });

  it('names the field when the destination is wrong', async () => {
    const { file, dir } = testDb();
    await expect(
      runExport({ dbFile: file, job: { kind: 'collections' }, out: path.join(dir, 'nope', 'x.csv') }),
    ).rejects.toThrow(/out: the folder .* does not exist/);
    await expect(
      runExport({ dbFile: file, job: { kind: 'balances', from: 10, to: 5 }, out: path.join(dir, 'x.csv') }),
    ).rejects.toThrow(/to must be after from/);
  });
});

describe('balance report CSV', () => {
  it('opening, closing, lowest, highest and change per currency and wallet type, plus every snapshot', async () => {
    const { db, file, dir } = testDb();
    const { day } = balanceDay(db);
    const out = path.join(dir, 'balances.csv');
    const res = await runExport({
      dbFile: file,
      job: { kind: 'balances', from: day, to: day + 86_400_000 },
      out,
      tz: { offsetMinutes: 0 },
      bom: true,
    });
    expect(res.files).toEqual([out, snapshotsPathFor(out)]);
    expect(res.rows).toBe(5);
    const summary = records(out);
    const kesActual = summary.find((r) => r.currency === 'KES' && r.balance === 'actual')!;
    expect(kesActual).toMatchObject({
      wallet_type: 'MERCHANT_COLLECTION',
      opening: '100.00',
      closing: '200.00',
      lowest: '50.00',
      highest: '250.00',
      change: '100.00',
      opening_observed_at: new Date(day - 3600_000).toISOString().replace('Z', '+00:00'),
      snapshots_in_range: '3',
    });
    const ugx = summary.filter((r) => r.currency === 'UGX' && r.balance === 'actual');
    expect(ugx.map((r) => [r.wallet_type, r.opening, r.closing, r.change])).toEqual([
      ['MERCHANT_COLLECTION', '700000', '700000', '0'],
      ['MERCHANT_PAYOUT', '650000', '650000', '0'],
    ]);
    expect(summary.filter((r) => r.currency === 'KES').map((r) => r.balance)).toEqual([
      'available',
      'uncleared',
      'reserve',
      'actual',
    ]);
    const snaps = records(snapshotsPathFor(out));
    expect(snaps).toHaveLength(5);
    expect(snaps[0]).toMatchObject({
      currency: 'KES',
      actual: '50.00',
      observed_at: new Date(day + 1000).toISOString().replace('Z', '+00:00'),
    });
  });
});
