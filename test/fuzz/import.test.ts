// Fuzz of the JSON-lines import (issue 39, item 3): the import operation the CLI and the Collections screen
// call (operations/import-callbacks.ts), on a real SQLite file, from a file on disk and from text. Random
// files of valid, forged, repeated, garbage, binary, nested and over-long lines, joined by LF or CRLF, with
// or without a BOM. Each asserts: no throw, every non-blank line counted once and each refusal named by its
// line, exactly the distinct valid callbacks stored, no unhandled rejection, and a valid file afterwards
// imported as ever.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { importCallbacks } from '../../main/operations/import-callbacks.js';
import { systemClock } from '../../main/clock.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, deeplyNested, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';
import { testLedger } from '../support/ledger.js';
import { fuzzBudget, INTERNAL_TEXT, unhandledRejections } from './budget.js';
import { fileTempDir } from '../support/tmp.js';

const budget = fuzzBudget('import', 1);
const { ledger } = testLedger();
const rejections = unhandledRejections();
let dir: string;
let db: Db;
let run = 0;

beforeAll(() => {
  dir = fileTempDir('md-fuzz-import-');
  db = openDatabase(path.join(dir, 'merchant-desk.sqlite'));
});
afterAll(() => {
  db?.close();
  rejections.stop();
  expect(rejections.list).toEqual([]);
});

const events = () => db.prepare('SELECT count(*) FROM collection_events').pluck().get() as number;

/** One line of the file, and what it is (the oracle's view). */
type Line =
  | { kind: 'valid'; ref: number; status: 'COMPLETED' | 'FAILED'; raw: boolean; indent: number }
  | { kind: 'forged'; ref: number }
  | { kind: 'text'; text: string }
  | { kind: 'nested'; depth: number; raw: boolean }
  | { kind: 'long'; length: number };

const noBreaks = (s: string) => s.replace(/[\r\n]/g, ' ');
const line: fc.Arbitrary<Line> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('valid' as const),
      ref: fc.nat(6),
      status: fc.constantFrom('COMPLETED' as const, 'FAILED' as const),
      raw: fc.boolean(),
      indent: fc.nat(2),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forged' as const), ref: fc.nat(6) }) },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.string({ maxLength: 200, unit: 'binary' }),
        fc.string({ maxLength: 200, unit: 'grapheme' }),
        fc.jsonValue({ maxDepth: 30 }).map((v) => JSON.stringify(v)),
        fc.constantFrom(
          '',
          '   ',
          '\uFEFF',
          '\t',
          '{"headers": {}, "body": ',
          '[1,2,3]',
          'null',
          '{"headers":{},"body":"x"}',
        ),
      )
      .map((t) => ({ kind: 'text' as const, text: noBreaks(t) })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('nested' as const),
      depth: fc.integer({ min: 33, max: 12_000 }),
      raw: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('long' as const),
      length: fc.integer({ min: 256 * 1024 + 1, max: 300_000 }),
    }),
  },
);

/** The text of a line, for this run's references (so no run's callback is another's duplicate). */
function textOf(l: Line, prefix: string): string {
  const ref = (n: number) => `${prefix}-${n}`;
  switch (l.kind) {
    case 'valid': {
      const body = callbackBody(ref(l.ref), l.status);
      const headers = { 'hmac-signature': hmacHeader(body) };
      return JSON.stringify({ headers, body: l.raw ? JSON.stringify(body, null, l.indent) : body });
    }
    case 'forged': {
      const body = callbackBody(ref(l.ref));
      return JSON.stringify({ headers: { 'hmac-signature': hmacHeader(body, 'not-the-key') }, body });
    }
    case 'text':
      return l.text;
    case 'nested': {
      const body = callbackBody(ref(0));
      const headers = JSON.stringify({ 'hmac-signature': hmacHeader(body) });
      const deep = deeplyNested(body, l.depth);
      return l.raw
        ? JSON.stringify({ headers: JSON.parse(headers) as object, body: deep })
        : `{"headers":${headers},"body":${deep}}`;
    }
    case 'long':
      return JSON.stringify({ headers: {}, body: 'x'.repeat(l.length) });
  }
}

describe('fuzz: the JSON-lines import', () => {
  it(
    'random files: every line counted and named, exactly the distinct valid callbacks stored, nothing else',
    async () => {
      await budget.check(
        'files',
        fc.asyncProperty(
          fc.array(line, { maxLength: 25 }),
          fc.boolean(),
          fc.boolean(),
          fc.boolean(),
          async (lines, crlf, bom, fromFile) => {
            const prefix = `MD-FZI-${++run}`;
            for (let n = 0; n < 3; n++) insertCollection(db, { reference: `${prefix}-${n}` }); // the rest are orphans
            const texts = lines.map((l) => textOf(l, prefix));
            const text = (bom ? '\uFEFF' : '') + texts.join(crlf ? '\r\n' : '\n') + (texts.length ? '\n' : '');
            const file = path.join(dir, `in-${run}.jsonl`);
            fs.writeFileSync(file, text);
            const before = events();
            const s = await importCallbacks(
              { db, clock: systemClock, ledger, keys: { signingKey: SIGNING_KEY }, team: null },
              fromFile ? { file } : { text },
            );
            const counted = texts.map((t, i) => (i === 0 && bom ? '\uFEFF' + t : t)).filter((t) => t.trim() !== '');
            expect(s.lines).toBe(counted.length);
            expect(s.imported + s.duplicates + s.badSignatures + s.malformed).toBe(s.lines);
            const valid = new Set(
              lines
                .filter((l): l is Extract<Line, { kind: 'valid' }> => l.kind === 'valid')
                .map((l) => `${l.ref}:${l.status}`),
            );
            expect(s.imported).toBe(valid.size);
            expect(events()).toBe(before + valid.size);
            expect(s.badSignatures).toBeGreaterThanOrEqual(lines.filter((l) => l.kind === 'forged').length);
            for (const r of s.results) {
              if (r.result === 'malformed') {
                expect(r.message).toMatch(new RegExp(`^line ${r.line}\\b`));
                expect(r.message).not.toMatch(INTERNAL_TEXT);
              }
              if (r.result === 'bad_signature') expect(r.reason).not.toMatch(INTERNAL_TEXT);
            }
            // The lines past the limits are refused by their number, whatever came before them.
            lines.forEach((l, i) => {
              if (l.kind === 'nested' || l.kind === 'long')
                expect(s.results.find((r) => r.line === i + 1)).toMatchObject({ result: 'malformed' });
            });
            fs.rmSync(file);
          },
        ),
        40,
      );
      // A valid file afterwards: imported as ever.
      const body = callbackBody('MD-FZI-AFTER');
      const after = await importCallbacks(
        { db, clock: systemClock, ledger, keys: { signingKey: SIGNING_KEY }, team: null },
        { text: JSON.stringify({ headers: { 'hmac-signature': hmacHeader(body) }, body }) + '\n' },
      );
      expect(after).toMatchObject({ lines: 1, imported: 1 });
    },
    budget.timeoutMs,
  );
});
