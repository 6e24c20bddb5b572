// Issue 39, the service's answers as a careless or hostile service sends them, over real HTTP: a small
// server on 127.0.0.1 answers what fast-check draws (truncated, HTML, a wrong envelope, wrong types, huge or
// deep numbers, a status that says it failed, a reset, a slow drip, a redirect to another host) to the real
// client, the real poller and a real SQLite file. Each answer: no crash and no unhandled rejection; a
// documented error whose message is plain words (naming the field when a value was wrong); nothing stored
// from a refused answer; and the valid answer after it is taken, to the cent.
// FUZZ_RUNS / FUZZ_SECONDS / FUZZ_SEED size the run, as for every boundary (test/fuzz/budget.ts).
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../main/service/client.js';
import { ServiceError } from '../../main/service/errors.js';
import { SERVICE_ERROR_KINDS } from '../../main/service/error-kinds.shared.js';
import { serviceUrlProblem } from '../../main/service/service-url.js';
import { createPoller, type Poller } from '../../main/poller/index.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { latestBalances } from '../../main/store/sqlite/balances.js';
import { formatMinor } from '../../main/money/index.js';
import { tempDir } from '../support/tmp.js';
import { fuzzBudget } from './budget.js';

/** A property's time: its budget (FUZZ_SECONDS) and a margin for the answers in flight, or two minutes. */
const budget = fuzzBudget('service-answers', 2);

const KEYS = { publicKey: 'pk_fuzz_PUBLIC_1234567', secretKey: 'sk_fuzz_SECRET_7654321' };
const TIMEOUT_MS = 400;

/** What the server does with the next request. */
type Plan =
  | { kind: 'send'; status: number; headers: Record<string, string>; body: string; field?: string }
  | { kind: 'reset'; after: string }
  | { kind: 'drip'; chunks: string[]; gapMs: number }
  | { kind: 'redirect'; status: number };

interface Server {
  url: string;
  seen: number;
  close(): Promise<void>;
}

async function listen(host: string, handle: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => handle(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const s: Server = {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    seen: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', () => (s.seen += 1));
  return s;
}

let plan: Plan = { kind: 'send', status: 500, headers: {}, body: '' };
let service: Server;
let elsewhere: Server; // another host a redirect points at: it must never be asked
let db: Db;
let poller: Poller;
let now = Date.UTC(2026, 10, 21);
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

function serve(req: http.IncomingMessage, res: http.ServerResponse) {
  const p = plan;
  if (p.kind === 'send') {
    res.writeHead(p.status, p.headers);
    res.end(p.body);
  } else if (p.kind === 'reset') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(p.after);
    setImmediate(() => req.socket.destroy());
  } else if (p.kind === 'drip') {
    res.writeHead(200, { 'content-type': 'application/json' });
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i >= p.chunks.length) return void res.end();
      res.write(p.chunks[i++]);
      setTimeout(next, p.gapMs);
    };
    next();
  } else {
    res.writeHead(p.status, { location: `${elsewhere.url}${req.url ?? '/'}` });
    res.end();
  }
}

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  service = await listen('127.0.0.1', serve);
  elsewhere = await listen('127.0.0.2', (_req, res) => res.end('{}'));
  db = openDatabase(path.join(tempDir(), 'fuzz.sqlite'));
  const client = createServiceClient({ baseUrl: service.url, keys: () => KEYS, retries: 0, timeoutMs: TIMEOUT_MS });
  poller = createPoller({
    db,
    getClient: () => client,
    clock: { now: () => now },
    sleep: async () => {},
    intervals: { balancesMs: 60_000, providersMs: 900_000 },
  });
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await poller?.stop();
  db?.close();
  await service?.close();
  await elsewhere?.close();
});

// --- what a valid answer is, and the ways an answer goes wrong ----------------------------------------

type Cur = 'UGX' | 'KES' | 'USD' | 'KWD';

/** A wallet whose amounts are exact minor units; written on the wire as decimal JSON numbers. */
const wallet = fc
  .record({
    currency: fc.constantFrom<Cur>('UGX', 'KES', 'USD', 'KWD'),
    walletType: fc.constantFrom('MERCHANT_COLLECTION', 'MERCHANT_PAYOUT'),
    available: fc.integer({ min: 0, max: Math.floor(Number.MAX_SAFE_INTEGER / 4) }),
    uncleared: fc.integer({ min: 0, max: 10 ** 12 }),
    reserve: fc.integer({ min: 0, max: 10 ** 12 }),
  })
  .map((w) => ({ ...w, actual: w.available + w.uncleared + w.reserve }));
type Wallet = typeof wallet extends fc.Arbitrary<infer W> ? W : never;

const wallets = fc.uniqueArray(wallet, {
  minLength: 1,
  maxLength: 4,
  selector: (w) => `${w.currency}/${w.walletType}`,
});

function walletText(w: Wallet): string {
  const m = (n: number) => formatMinor(n, w.currency);
  return (
    `{"available_balance":${m(w.available)},"actual_balance":${m(w.actual)},"uncleared_balance":${m(w.uncleared)},` +
    `"reserve_balance":${m(w.reserve)},"currency":"${w.currency}","wallet_type":"${w.walletType}"}`
  );
}

function balancesText(ws: readonly Wallet[], status = 'success'): string {
  return `{"code":200,"status":${JSON.stringify(status)},"message":"ok","data":{"merchant_balances":[${ws.map(walletText).join(',')}]}}`;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const AMOUNT_FIELDS = ['available_balance', 'actual_balance', 'uncleared_balance', 'reserve_balance'] as const;

/** A value that is not what the field holds, written as JSON text. */
const wrongValue = fc.oneof(
  fc.constant('null'),
  fc.constant('true'),
  fc.constant('"n/a"'),
  fc.constant('"12,50"'),
  fc.constant('[]'),
  fc.constant('{}'),
  fc.constant('"1e3"'),
  fc.stringMatching(/^[1-9][0-9]{17,40}(\.[0-9]{1,9})?$/), // more digits than any amount can hold
  fc.constant('1e400'),
  fc.constant('-1e-400'),
  fc.constant('0.0000001'),
);

const broken: fc.Arbitrary<Plan> = fc.oneof(
  // Truncated JSON.
  fc.tuple(wallets, fc.double({ min: 0, max: 0.99, noNaN: true })).map(([ws, at]) => {
    const t = balancesText(ws);
    return { kind: 'send' as const, status: 200, headers: JSON_TYPE, body: t.slice(0, Math.floor(t.length * at)) };
  }),
  // An HTML error page, with any status.
  fc.tuple(fc.constantFrom(200, 404, 500, 502, 503), fc.string({ maxLength: 200 })).map(([status, text]) => ({
    kind: 'send' as const,
    status,
    headers: { 'content-type': 'text/html' },
    body: `<!DOCTYPE html><html><body><h1>${text.replace(/[<>]/g, '')}</h1></body></html>`,
  })),
  // Any JSON at all, as the envelope (or where data should be).
  fc.tuple(fc.json({ maxDepth: 4 }), fc.boolean()).map(([j, inData]) => ({
    kind: 'send' as const,
    status: 200,
    headers: JSON_TYPE,
    body: inData ? `{"code":200,"status":"success","data":${j}}` : j,
  })),
  // One field of one wallet with the wrong type or an amount that cannot be held.
  fc
    .tuple(wallets, fc.constantFrom(...AMOUNT_FIELDS, 'currency', 'wallet_type'), wrongValue)
    .map(([ws, field, value]) => {
      const t = balancesText(ws);
      const i = t.indexOf(`"${field}":`) + field.length + 3;
      const end =
        field === 'currency' || field === 'wallet_type' ? t.indexOf('"', i + 1) + 1 : t.slice(i).search(/[,}]/) + i;
      return {
        kind: 'send' as const,
        status: 200,
        headers: JSON_TYPE,
        body: t.slice(0, i) + value + t.slice(end),
        field,
      };
    }),
  // An answer that says it failed, with HTTP 200 and code 200.
  fc.tuple(wallets, fc.constantFrom('declined', 'failed', 'error', 'pending', '')).map(([ws, status]) => ({
    kind: 'send' as const,
    status: 200,
    headers: JSON_TYPE,
    body: balancesText(ws, status),
  })),
  // Nested far past what any answer needs, and a body past the size the desk reads.
  fc.integer({ min: 17, max: 20_000 }).map((depth) => ({
    kind: 'send' as const,
    status: 200,
    headers: JSON_TYPE,
    body: `{"code":200,"status":"success","data":{"merchant_balances":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
  })),
  fc.constant<Plan>({
    kind: 'send' as const,
    status: 200,
    headers: JSON_TYPE,
    body: `{"code":200,"status":"success","data":{"merchant_balances":[],"x":"${'x'.repeat(4 * 1024 * 1024)}"}}`,
  }),
  // The connection reset after part of a body; a body dripped slower than the time-out.
  wallets.map((ws) => ({ kind: 'reset' as const, after: balancesText(ws).slice(0, 20) })),
  wallets.map((ws) => {
    const t = balancesText(ws);
    return { kind: 'drip' as const, chunks: [t.slice(0, 10), t.slice(10, 20), t.slice(20)], gapMs: TIMEOUT_MS };
  }),
  // A redirect to another host (the keys must not follow it).
  fc.constantFrom(301, 302, 307, 308).map((status) => ({ kind: 'redirect' as const, status })),
);

/** Every documented failure of a poll (a poll's answer is never a charge's unknown outcome). */
const DOCUMENTED: readonly string[] = [...SERVICE_ERROR_KINDS.filter((k) => k !== 'unknown_outcome'), 'not_configured'];

/** A message a person may read: words, no stack, no class name, no internal error text. */
function expectPlainWords(message: string) {
  expect(message.length).toBeGreaterThan(10);
  expect(message).not.toMatch(/\n\s+at |Error:|TypeError|SyntaxError|RangeError|Maximum call stack|undefined|\[object/);
}

describe('the service answers what fast-check draws', () => {
  it(
    'balances: a refused answer is a documented error and stores nothing; the valid answer after it is taken',
    async () => {
      let runs = 0;
      await budget.check(
        'balances',
        fc.asyncProperty(broken, wallets, async (bad, good) => {
          runs += 1;
          const before = latestBalances(db, { now, staleAfterMs: 600_000 }).rows;
          plan = bad;
          now += 1_000;
          const st = await poller.refresh('balances');
          const after = latestBalances(db, { now, staleAfterMs: 600_000 }).rows;
          const e = st.balances.lastError;
          if (e === null) {
            // Only a failed-status word that is a success in disguise may pass: none of the drawn ones is.
            throw new Error(`taken as a success: ${JSON.stringify(bad).slice(0, 300)}`);
          }
          expect(DOCUMENTED).toContain(e.kind);
          expectPlainWords(e.message);
          if (bad.kind === 'send' && bad.field) expect(e.message).toContain(bad.field);
          expect(after).toEqual(before);
          expect(elsewhere.seen).toBe(0);

          plan = { kind: 'send', status: 200, headers: JSON_TYPE, body: balancesText(good) };
          now += 1_000;
          const ok = await poller.refresh('balances');
          expect(ok.balances.lastError).toBeNull();
          const stored = latestBalances(db, { now, staleAfterMs: 600_000 }).rows;
          for (const w of good) {
            const row = stored.find((r) => r.currency === w.currency && r.walletType === w.walletType);
            expect(row).toMatchObject({
              availableMinor: w.available,
              actualMinor: w.actual,
              unclearedMinor: w.uncleared,
              reserveMinor: w.reserve,
            });
          }
        }),
        60,
      );
      expect(unhandled).toEqual([]);
      console.log(`service answers fuzz (balances): ${runs} hostile answers, each followed by a valid one`);
    },
    budget.timeoutMs,
  );

  it(
    'initialize: whatever comes back is a documented error or an accepted charge with a page the desk opens',
    async () => {
      const client = createServiceClient({ baseUrl: service.url, keys: () => KEYS, retries: 0, timeoutMs: TIMEOUT_MS });
      const REQ = {
        merchantReference: 'MD-20261121-FUZZ0001',
        currency: 'KES',
        amountMinor: 150050,
        description: 'Phone order 1234',
        cardCipher: 'Q0lQSEVSVEVYVF9USEFUX01VU1RfTk9UX0xFQUs=',
        redirectUrl: 'https://merchant.example/return',
      };
      const url = fc.oneof(
        fc.webUrl(),
        fc.constantFrom('javascript:alert(1)', 'http://pay.example/p', 'https://u:p@pay.example/p', 'data:text/html,x'),
        fc.string(),
      );
      const answer: fc.Arbitrary<Plan> = fc.oneof(
        broken,
        fc
          .tuple(fc.constantFrom(200, 202, 409, 422), fc.constantFrom('accepted', 'success', 'error', 'failed'), url)
          .map(([status, word, u]) => ({
            kind: 'send' as const,
            status,
            headers: JSON_TYPE,
            body: JSON.stringify({
              code: status,
              status: word,
              message: status >= 400 ? 'duplicate merchant_reference' : 'ok',
              data: { merchant_reference: REQ.merchantReference, internal_reference: 'INT-1', payment_url: u },
            }),
          })),
      );
      let runs = 0;
      await budget.check(
        'initialize',
        fc.asyncProperty(answer, async (a) => {
          runs += 1;
          plan = a;
          const r = await client.initialize(REQ).then(
            (ok) => ({ ok }),
            (e: unknown) => ({ e }),
          );
          if ('ok' in r) {
            expect(serviceUrlProblem(r.ok.paymentUrl, service.url)).toBeNull();
            return;
          }
          expect(r.e).toBeInstanceOf(ServiceError);
          const e = r.e as ServiceError;
          expect([...DOCUMENTED, 'unknown_outcome']).toContain(e.kind);
          expectPlainWords(e.message);
          if ('paymentUrl' in e && typeof e.paymentUrl === 'string')
            expect(serviceUrlProblem(e.paymentUrl, service.url)).toBeNull();
          expect(elsewhere.seen).toBe(0);
        }),
        60,
      );
      expect(unhandled).toEqual([]);
      console.log(`service answers fuzz (initialize): ${runs} answers`);
    },
    budget.timeoutMs,
  );
});
