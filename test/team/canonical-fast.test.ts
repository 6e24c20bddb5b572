// Team migration 16 writes the chain's canonical text another way (array_to_json over the columns, the
// trailing-null expression only when the last column is null), for a cheaper insert. The text must be the
// old one byte for byte, or every hash stored before would stop matching and every desk would raise the
// tamper alarm. So both definitions run here over the same rows: the one of migration 11 as it shipped,
// and the one the database has now; generated values with quotes, backslashes, control characters,
// non-BMP and combining characters, and nulls in every column, trailing runs included.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql as migration11 } from '../../main/team/migrations/011-event-evidence.js';
import { canonicalEvent } from '../../main/team/chain.js';
import { appendEvents, eventFromRaw } from '../../main/team/events.js';
import { selectEventsAfterRaw } from '../../main/store/pg/events.js';
import { teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
beforeAll(async () => {
  team = await teamFixture();
});
afterAll(async () => {
  await team?.close();
});

/** Migration 11's team.event_canonical, as shipped, under another name. */
function definitionOf11(): string {
  const start = migration11.indexOf('CREATE OR REPLACE FUNCTION team.event_canonical');
  const end = migration11.indexOf('$fn$;', start) + '$fn$;'.length;
  expect(start).toBeGreaterThan(0);
  return migration11
    .slice(start, end)
    .replace('CREATE OR REPLACE FUNCTION team.event_canonical', 'CREATE FUNCTION pg_temp.canonical_11');
}

// PostgreSQL text holds no NUL nor a lone surrogate (not UTF-8); everything else may appear in a value.
const pgText = (s: string) =>
  s
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .split('\u0000')
    .join('');
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).map(pgText),
  fc.constantFrom('', 'null', ',null', '"', '\\', '\\"', '\n\t\r\b\f', '\u007f\u0080\u2028\u2029', '😀é', 'e\u0301'),
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 3 });
const row = fc.record({
  seq: maybe(fc.bigInt({ min: 1n, max: 2n ** 62n }).map(String)),
  event_key: maybe(text),
  merchant_reference: maybe(text),
  internal_reference: maybe(text),
  source: maybe(text),
  kind: maybe(text),
  status: maybe(text),
  amount_minor: maybe(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }).map(String)),
  currency: maybe(text),
  signature: maybe(text),
  payload: maybe(text),
  note: maybe(text),
  payment_url: maybe(text),
  status_message: maybe(text),
  occurred_at: maybe(fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString())),
  recorded_at: maybe(fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString())),
  actor: maybe(fc.string({ maxLength: 20 }).map(pgText)),
  evidence: maybe(text),
});

describe("the chain's canonical text (team migration 16)", () => {
  it('is the text of migration 11, byte for byte, over generated rows with nulls anywhere', async () => {
    const c = await team.owner.connect();
    try {
      await c.query(definitionOf11());
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 60 }), async (rows) => {
          const r = await c.query<{ now: string; was: string }>(
            `SELECT team.event_canonical(e) AS now, pg_temp.canonical_11(e) AS was
             FROM jsonb_populate_recordset(NULL::team.events, $1::jsonb) AS e`,
            [JSON.stringify(rows)],
          );
          expect(r.rows).toHaveLength(rows.length);
          for (const x of r.rows) expect(x.now).toBe(x.was);
        }),
        { numRuns: 150 },
      );
    } finally {
      c.release();
    }
  });

  it("is still the desks' canonical text (team/chain.ts) for a stored callback with its evidence, and one without", async () => {
    const writer = team.signIn(await team.addOperator('back_office'));
    await appendEvents(writer, [
      {
        eventKey: 'canon-1',
        merchantReference: 'R-"1"',
        source: 'callback',
        kind: 'outcome',
        status: 'COMPLETED',
        amountMinor: 150_050,
        currency: 'NGN',
        signature: 'verified',
        payload: '{"event":"transaction.completed","payload":{"note":"a \\"quoted\\" word, é and 😀"}}',
        evidence: '{"hmac":"t=1,s=ab","rsa":null}',
        occurredAt: 1_700_000_000_123,
      },
      {
        eventKey: 'canon-2',
        merchantReference: 'R-2',
        source: 'import',
        kind: 'outcome',
        signature: 'not_applicable',
        occurredAt: 1_700_000_000_456,
      },
    ]);
    const rows = (await selectEventsAfterRaw(team.owner, 0, 10, Number.MAX_SAFE_INTEGER)).map(eventFromRaw);
    const sql = await team.owner.query<{ seq: string; canonical: string }>(
      'SELECT seq, team.event_canonical(e) AS canonical FROM team.events e ORDER BY seq',
    );
    expect(sql.rows.map((r) => r.canonical)).toEqual(rows.map((e) => canonicalEvent(e)));
  });
});
