// Fuzz of the callback receiver (issue 39, item 3): the real receiver over real HTTP on 127.0.0.1, on a real
// SQLite file. Random bodies (bytes, JSON of any shape and depth, a valid callback mutated), random headers,
// signatures over mutated bodies, and replays. Each asserts: an answer from the documented set (never a
// 5xx: the service would retry forever), a JSON answer with a plain message, nothing stored from a refused
// delivery, no unhandled rejection, and a valid callback afterwards stored as ever.
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { startCallbackReceiver, type CallbackReceiver } from '../../main/callbacks/receiver.js';
import { sqliteCallbackStore } from '../../main/callbacks/callback-store.js';
import { systemClock } from '../../main/clock.js';
import { insertCollection } from '../collections/helpers.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';
import { testLedger } from '../support/ledger.js';
import { fuzzBudget, INTERNAL_TEXT, unhandledRejections } from './budget.js';
import { fileTempDir } from '../support/tmp.js';

const budget = fuzzBudget('receiver', 4);
const { ledger } = testLedger();
const DOCUMENTED = new Set([200, 400, 401, 404, 413, 415, 422]);

let db: Db;
let rx: CallbackReceiver;
let dir: string;
const rejections = unhandledRejections();
let serial = 0;

beforeAll(async () => {
  // For the whole file (tempDir's folders go after each test).
  dir = fileTempDir('md-fuzz-receiver-');
  db = openDatabase(path.join(dir, 'merchant-desk.sqlite'));
  rx = await startCallbackReceiver({
    db,
    store: sqliteCallbackStore(db, ledger),
    clock: systemClock,
    getKeys: () => ({ signingKey: SIGNING_KEY }),
    port: 0,
  });
});
afterAll(async () => {
  await rx?.close();
  db?.close();
  rejections.stop();
  expect(rejections.list).toEqual([]);
});

const events = () => db.prepare('SELECT count(*) FROM collection_events').pluck().get() as number;

async function post(body: string | Buffer, headers: Record<string, string>) {
  const res = await fetch(rx.url, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers,
  });
  const text = await res.text();
  return { status: res.status, text };
}

/** Every answer: a documented status and a JSON body whose message, if any, is plain words. */
function documented(a: { status: number; text: string }): void {
  expect(DOCUMENTED, `status ${a.status}: ${a.text.slice(0, 200)}`).toContain(a.status);
  const json = JSON.parse(a.text) as { status?: unknown; message?: unknown };
  expect(['ok', 'error']).toContain(json.status);
  if (json.status === 'error') {
    expect(typeof json.message).toBe('string');
    expect(json.message).not.toMatch(INTERNAL_TEXT);
  }
}

/** A callback for a collection of ours, signed, as the service sends it; a new reference each time. */
function valid() {
  const reference = `MD-FZ-${String(++serial).padStart(8, '0')}`;
  insertCollection(db, { reference });
  const body = callbackBody(reference);
  return { reference, body, text: JSON.stringify(body), hmac: hmacHeader(body) };
}

/** After any of them: a valid callback is stored and answered 200, as ever. */
async function stillStores(): Promise<void> {
  const v = valid();
  const before = events();
  const a = await post(v.text, { 'content-type': 'application/json', 'hmac-signature': v.hmac });
  expect(a.status).toBe(200);
  expect(events()).toBe(before + 1);
}

// Text that is JSON-ish: any JSON value (deep ones too), nesting far past the limit, JSON with a BOM,
// random characters, and a valid body cut or spliced at a random place.
const nested = fc
  .tuple(fc.integer({ min: 1, max: 12_000 }), fc.constantFrom('[', '{"a":'))
  .map(([n, open]) => open.repeat(n) + '0' + (open === '[' ? ']' : '}').repeat(n));
const mutated = fc.tuple(fc.nat(), fc.nat(), fc.string({ maxLength: 40 })).map(([at, cut, insert]) => {
  const t = JSON.stringify(callbackBody('MD-FZ-MUTATED'));
  const i = at % (t.length + 1);
  return t.slice(0, i) + insert + t.slice(i + (cut % 20));
});
const bodyText = fc.oneof(
  fc.jsonValue({ maxDepth: 40 }).map((v) => JSON.stringify(v)),
  nested,
  mutated,
  fc.string({ maxLength: 2_000, unit: 'binary' }),
  mutated.map((t) => '\uFEFF' + t),
  fc.constant(`{"event":"x","payload":{"s":"${'a'.repeat(70 * 1024)}"}}`),
);
const bodyBytes = fc.uint8Array({ maxLength: 4_096 }).map((b) => Buffer.from(b));
const contentType = fc.oneof(
  fc.constant('application/json'),
  fc.constant('application/json; charset=utf-8'),
  fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'APPLICATION/JSON', ''),
  fc.string({ maxLength: 60 }).filter((s) => /^[\t\x20-\x7e]*$/.test(s)),
);

describe('fuzz: the callback receiver', () => {
  it(
    'random bodies: a documented answer, nothing stored unless it is a valid signed callback',
    async () => {
      await budget.check(
        'bodies',
        fc.asyncProperty(fc.oneof(bodyText, bodyBytes), contentType, async (body, type) => {
          const before = events();
          const hmac = hmacHeader(callbackBody('MD-FZ-MUTATED'));
          const a = await post(body, { 'content-type': type, 'hmac-signature': hmac });
          documented(a);
          // Nothing here names a collection of ours: at most an orphan of the mutated body, if still valid.
          if (a.status !== 200) expect(events()).toBe(before);
        }),
        150,
      );
      await stillStores();
    },
    budget.timeoutMs,
  );

  it(
    'random headers: a documented answer; without a signature that verifies, nothing is stored',
    async () => {
      const header = fc.oneof(
        fc.string({ maxLength: 300 }),
        fc.tuple(fc.integer(), fc.stringMatching(/^[0-9a-f]{0,80}$/)).map(([t, s]) => `t=${t},s=${s}`),
        fc.base64String({ maxLength: 700 }),
      );
      const printable = (s: string) => /^[\t\x20-\x7e]*$/.test(s);
      await budget.check(
        'headers',
        fc.asyncProperty(
          fc.option(header.filter(printable)),
          fc.option(header.filter(printable)),
          fc.dictionary(fc.stringMatching(/^x-[a-z]{1,12}$/), fc.string({ maxLength: 100 }).filter(printable), {
            maxKeys: 5,
          }),
          async (hmac, rsa, extra) => {
            const v = valid();
            const before = events();
            const headers: Record<string, string> = { ...extra, 'content-type': 'application/json' };
            if (hmac !== null) headers['hmac-signature'] = hmac;
            if (rsa !== null) headers['rsa-signature'] = rsa;
            const a = await post(v.text, headers);
            documented(a);
            expect(a.status).toBe(401);
            expect(events()).toBe(before);
          },
        ),
        150,
      );
      await stillStores();
    },
    budget.timeoutMs,
  );

  it(
    'signatures over mutated bodies: a signed field changed is 401 and stores nothing; an unsigned one is stored',
    async () => {
      const signedFields = ['merchant_reference', 'internal_reference', 'transaction_type', 'transaction_status'];
      await budget.check(
        'signatures',
        fc.asyncProperty(
          fc.constantFrom('event', ...signedFields, 'status_message', 'customer_name', 'request_amount'),
          fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.constant(null)),
          async (field, value) => {
            const v = valid();
            const body = JSON.parse(v.text) as { event: unknown; payload: Record<string, unknown> };
            const signed = field === 'event' || signedFields.includes(field);
            const was = field === 'event' ? body.event : body.payload[field];
            fc.pre(!Object.is(was, value) && !(signed && String(was) === String(value)));
            if (field === 'event') body.event = value;
            else body.payload[field] = value;
            const before = events();
            const a = await post(JSON.stringify(body), {
              'content-type': 'application/json',
              'hmac-signature': v.hmac,
            });
            documented(a);
            if (signed) {
              expect([400, 401]).toContain(a.status);
              expect(events()).toBe(before);
            } else {
              expect(a.status).toBe(200);
              expect(events()).toBe(before + 1);
            }
          },
        ),
        120,
      );
      await stillStores();
    },
    budget.timeoutMs,
  );

  it(
    'replays: a callback sent again, in any whitespace and signed at any second, is stored once',
    async () => {
      await budget.check(
        'replays',
        fc.asyncProperty(
          fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: -3600, max: 3600 })), {
            minLength: 2,
            maxLength: 5,
          }),
          async (sends) => {
            const v = valid();
            const before = events();
            for (const [indent, skew] of sends) {
              const t = Math.floor(Date.now() / 1000) + skew;
              const a = await post(JSON.stringify(v.body, null, indent), {
                'content-type': 'application/json',
                'hmac-signature': hmacHeader(v.body, SIGNING_KEY, t),
              });
              documented(a);
              expect(a.status).toBe(200);
            }
            expect(events()).toBe(before + 1);
          },
        ),
        60,
      );
      await stillStores();
      // Each valid callback of this file is stored once, on its collection, verified.
      const rows = db.prepare(`SELECT signature, count(*) AS n FROM collection_events GROUP BY signature`).all() as {
        signature: string;
        n: number;
      }[];
      expect(rows.every((r) => r.signature === 'verified')).toBe(true);
    },
    budget.timeoutMs,
  );
});
