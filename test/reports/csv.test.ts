import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { amountCell, textCell, timeFormatter } from '../../main/reports/index.js';
import fs from 'node:fs';
import path from 'node:path';
import { EOL, FileSink, plainCell, StringSink } from '../../main/reports/csv.js';
import { formatMinor } from '../../main/money/index.js';
import { tempDir } from '../support/tmp.js';

describe('CSV cells', () => {
  it('an amount is formatMinor of it, or its minor units as they are where formatMinor refuses (unknown currency, not an integer)', () => {
    // The definition the report had before amountCell looked each currency's decimals up once.
    const reference = (minor: number, currency: string) => {
      try {
        return formatMinor(minor, currency);
      } catch {
        return String(minor);
      }
    };
    const amounts = [
      0,
      1,
      9,
      10,
      99,
      100,
      101,
      1234,
      150050,
      -1,
      -5,
      -550,
      -100000,
      2 ** 53 - 1,
      2 ** 53,
      2 ** 60,
      1.5,
      -0.25,
    ];
    // No decimals, two, three (KWD), unknown codes (twice each, after the lookups are cached).
    for (const currency of ['UGX', 'KES', 'KWD', 'USD', 'XYZ', 'kes', 'UGX', 'KWD', 'XYZ'])
      for (const minor of amounts)
        expect(amountCell(minor, currency), `${minor} ${currency}`).toBe(reference(minor, currency));
    expect(amountCell(1234, '')).toBe('1234');
    expect(amountCell(null, 'KES')).toBe('');
    expect(amountCell(1234, null)).toBe('1234');
  });

  it('the file sink writes the same bytes as the lines joined, across its batches and buffer refills', () => {
    const dir = tempDir('md-sink-');
    const file = path.join(dir, 'out.csv');
    const fd = fs.openSync(file, 'w');
    const sink = new FileSink(fd);
    const joined = new StringSink();
    // Multi-byte text, lines of every length up to ~40 KB: many times the 1 MiB buffer in all, not a multiple of a batch.
    for (let i = 0; i < 3001; i++) {
      const line = `${i},${'ü€x'.repeat(i % 97)},${'y'.repeat((i * 7919) % 40_000)}${EOL}`;
      sink.push(line);
      joined.push(line);
      if (i % 1000 === 999) sink.flush(); // a flush between batches changes nothing
    }
    sink.flush();
    fs.closeSync(fd);
    const expected = Buffer.from(joined.text(), 'utf8');
    expect(sink.bytes).toBe(expected.length);
    expect(fs.readFileSync(file).equals(expected)).toBe(true);
  });

  it('guards text cells against formula injection, leaves numbers alone', () => {
    expect(textCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(textCell('+256700000000')).toBe("'+256700000000");
    expect(textCell('-1')).toBe("'-1");
    expect(textCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(textCell('\tTAB')).toBe("'\tTAB");
    expect(textCell('\rCR')).toBe(`"'\rCR"`);
    expect(textCell('Jane = Doe')).toBe('Jane = Doe');
    expect(amountCell(-550, 'USD')).toBe('-5.50'); // an amount column is a number, not guarded
  });

  it('writes exactly what csv-stringify writes (RFC 4180 quoting, CRLF, escape_formulas)', () => {
    const opts = { record_delimiter: 'windows', quote_record_delimiter: true } as const;
    const cells = [
      'plain',
      'with, comma',
      'with "quotes"',
      'line\nbreak',
      'cr\rhere',
      'both\r\n',
      '',
      'ünïcødé ✓',
      ' spaced ',
      '1500.50',
    ];
    expect(cells.map(plainCell).join(',') + EOL).toBe(stringify([cells], opts));
    const hostile = ['=1+1', '-x', '+1', '@a', '\tt', '\rr', '=a,"b"', 'ok', 'a=b'];
    expect(hostile.map(textCell).join(',') + EOL).toBe(stringify([hostile], { ...opts, escape_formulas: true }));
  });

  it('formats amounts with the currency decimals', () => {
    expect(amountCell(150000, 'UGX')).toBe('150000');
    expect(amountCell(150050, 'KES')).toBe('1500.50');
    expect(amountCell(5, 'USD')).toBe('0.05');
    expect(amountCell(1230, 'BHD')).toBe('1.230');
    expect(amountCell(null, 'USD')).toBe('');
  });

  it('formats times as ISO 8601 with the offset in effect', () => {
    const t = Date.UTC(2026, 10, 21, 22, 5, 9, 7);
    expect(timeFormatter({ offsetMinutes: 0 })(t)).toBe('2026-11-21T22:05:09.007+00:00');
    expect(timeFormatter({ offsetMinutes: 180 })(t)).toBe('2026-11-22T01:05:09.007+03:00');
    expect(timeFormatter({ offsetMinutes: -330 })(t)).toBe('2026-11-21T16:35:09.007-05:30');
    const local = timeFormatter('local')(t);
    expect(new Date(local).getTime()).toBe(t);
    expect(local).toMatch(/[+-]\d{2}:\d{2}$/);
    expect(timeFormatter({ offsetMinutes: 0 })(null)).toBe('');
  });
});
