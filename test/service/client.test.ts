import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient, initializeBody, type ServiceClientOptions } from '../../main/service/client.js';
import { parseRetryAfter } from '../../main/service/answers.js';
import {
  AuthenticationError,
  DuplicateReferenceError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServiceError,
  UnavailableError,
  UnknownOutcomeError,
  UnreadableResponseError,
  ValidationError,
} from '../../main/service/errors.js';
import type { InitializeRequest } from '../../main/service/types.js';
import { fail, ok, startStub, type Stub } from './stub.js';

const KEYS = { publicKey: 'pk_test_PUBLIC_1234567', secretKey: 'sk_test_SECRET_7654321' };
const CIPHER = 'Q0lQSEVSVEVYVF9USEFUX01VU1RfTk9UX0xFQUs=';
const BALANCE = {
  available_balance: 1000,
  actual_balance: 1200,
  uncleared_balance: 150,
  reserve_balance: 50,
  currency: 'UGX',
  wallet_type: 'MERCHANT_COLLECTION',
};
const REQ: InitializeRequest = {
  merchantReference: 'MD-20261121-0001',
  currency: 'KES',
  amountMinor: 150050,
  description: 'Phone order 1234',
  cardCipher: CIPHER,
  redirectUrl: 'https://merchant.example/return',
  customerName: 'Amina Nakato',
  chargeCustomer: false,
};
const ACCEPTED = ok(
  {
    internal_reference: 'INT-1',
    merchant_reference: REQ.merchantReference,
    payment_url: 'https://pay.example/pay/tok1',
  },
  202,
);

let stub: Stub;
let sleeps: number[];
beforeEach(async () => {
  stub = await startStub();
  sleeps = [];
});
afterEach(async () => {
  await stub.close();
});

function client(over: Partial<ServiceClientOptions> = {}) {
  return createServiceClient({
    baseUrl: stub.baseUrl,
    keys: () => KEYS,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    timeoutMs: 2_000,
    ...over,
  });
}

async function caught(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('expected a ServiceError');
}

describe('headers (DESIGN.md)', () => {
  it('balances: version, accept, public and secret key; currency upper-cased', async () => {
    stub.reply(ok({ merchant_balances: [BALANCE] }));
    const b = await client().getBalances('ugx');
    expect(b).toEqual([
      {
        currency: 'UGX',
        walletType: 'MERCHANT_COLLECTION',
        availableMinor: 1000,
        actualMinor: 1200,
        unclearedMinor: 150,
        reserveMinor: 50,
      },
    ]);
    const r = stub.seen[0]!;
    expect(r.method).toBe('GET');
    expect(r.url).toBe('/data/wallet-balances?currency=UGX');
    expect(r.headers['x-api-version']).toBe('1');
    expect(r.headers['accept']).toBe('application/json');
    expect(r.headers['public-key']).toBe(KEYS.publicKey);
    expect(r.headers['secret-key']).toBe(KEYS.secretKey);
    expect(r.headers['content-type']).toBeUndefined();
  });

  it('payment options: public key only, never the secret key; filters upper-cased', async () => {
    stub.reply(ok({ payment_providers: [] }));
    await client().getPaymentOptions({ currency: 'kes', transactionType: 'collection' });
    const r = stub.seen[0]!;
    expect(r.url).toBe('/data/payment-providers?currency=KES&transaction_type=COLLECTION');
    expect(r.headers['public-key']).toBe(KEYS.publicKey);
    expect(r.headers['secret-key']).toBeUndefined();
    expect(JSON.stringify(r.headers)).not.toContain(KEYS.secretKey);
    expect(r.headers['x-api-version']).toBe('1');
  });

  it('initialize: both keys, JSON content type, the amount written as a decimal JSON number', async () => {
    stub.reply(ACCEPTED);
    const a = await client().initialize(REQ);
    expect(a).toEqual({
      httpStatus: 202,
      merchantReference: REQ.merchantReference,
      internalReference: 'INT-1',
      paymentUrl: 'https://pay.example/pay/tok1',
      message: 'ok',
    });
    const r = stub.seen[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/collections/initialize');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['secret-key']).toBe(KEYS.secretKey);
    expect(r.headers['x-api-version']).toBe('1');
    expect(r.body).toContain('"amount":1500.50,');
    expect(JSON.parse(r.body)).toEqual({
      merchant_reference: REQ.merchantReference,
      transaction_method: 'CARD',
      currency: 'KES',
      amount: 1500.5,
      description: REQ.description,
      card_cipher: CIPHER,
      redirect_url: REQ.redirectUrl,
      customer_name: 'Amina Nakato',
      charge_customer: false,
    });
  });

  it('keeps a base URL path prefix', async () => {
    stub.reply(ok({ merchant_balances: [] }));
    await client({ baseUrl: `${stub.baseUrl}/api/v1/` }).getBalances();
    expect(stub.seen[0]!.url).toBe('/api/v1/data/wallet-balances');
  });
});

describe('amount on the wire', () => {
  it('writes the decimal string of the minor units, never a float', () => {
    expect(initializeBody({ ...REQ, currency: 'UGX', amountMinor: 1500 })).toContain('"amount":1500,');
    expect(initializeBody({ ...REQ, currency: 'USD', amountMinor: 10 })).toContain('"amount":0.10,');
    expect(initializeBody({ ...REQ, currency: 'USD', amountMinor: 900719925474099 })).toContain(
      '"amount":9007199254740.99,',
    );
  });
  it('refuses a non-positive or fractional amount and an unknown currency before sending', async () => {
    for (const [patch, field] of [
      [{ amountMinor: 0 }, 'amount'],
      [{ amountMinor: 10.5 }, 'amount'],
      [{ currency: 'XYZ' }, 'currency'],
    ] as const) {
      const e = await caught(client().initialize({ ...REQ, ...patch }));
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).field).toBe(field);
    }
    expect(stub.seen).toHaveLength(0);
  });
});

describe('GET retries', () => {
  it('retries 5xx and 429 with growing jittered back-off, honouring Retry-After', async () => {
    stub.reply(
      fail(503, 'maintenance'),
      fail(500, 'oops'),
      fail(429, 'slow down', null, { 'retry-after': '3' }),
      fail(503, 'maintenance', null, { 'retry-after': '4' }),
      ok({ merchant_balances: [BALANCE] }),
    );
    const b = await client({ retries: 4 }).getBalances();
    expect(b).toHaveLength(1);
    expect(stub.seen).toHaveLength(5);
    // random() = 0.5: delay = backoff * 0.75 (500 -> 375, 1000 -> 750); the 429 and the 503 wait their Retry-After.
    expect(sleeps).toEqual([375, 750, 3000, 4000]);
  });

  it('reads Retry-After as an HTTP date', async () => {
    const now = Date.UTC(2026, 10, 21, 12, 0, 0);
    stub.reply(
      fail(429, 'slow down', null, { 'retry-after': new Date(now + 5000).toUTCString() }),
      ok({ payment_providers: [] }),
    );
    await client({ clock: { now: () => now } }).getPaymentOptions();
    expect(sleeps).toEqual([5000]);
    expect(parseRetryAfter('1.5', 0)).toBe(1500);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });

  it('gives up after the retries with the last error, and hands a long Retry-After to the caller', async () => {
    stub.reply(fail(503, 'down for maintenance'));
    const e = await caught(client({ retries: 2 }).getBalances());
    expect(e).toBeInstanceOf(UnavailableError);
    expect(e.status).toBe(503);
    expect(e.serviceMessage).toBe('down for maintenance');
    expect(stub.seen).toHaveLength(3);

    stub.reply(fail(429, 'slow down', null, { 'retry-after': '120' }));
    stub.seen.length = 0;
    const r = await caught(client().getBalances());
    expect(r).toBeInstanceOf(RateLimitedError);
    expect((r as RateLimitedError).retryAfterMs).toBe(120_000);
    expect(r.message).toMatch(/retry after 120 s/);
    expect(stub.seen).toHaveLength(1);
  });

  it('retries a dropped connection, and reports a timeout as a network error', async () => {
    stub.reply({ destroy: true }, ok({ merchant_balances: [] }));
    await expect(client().getBalances()).resolves.toEqual([]);
    expect(stub.seen).toHaveLength(2);

    stub.reply({ hang: true });
    const e = await caught(client({ timeoutMs: 300, retries: 1 }).getBalances());
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toMatch(/No answer from the service/);
  });

  it('reports a refused connection as a network error naming the host', async () => {
    const url = stub.baseUrl;
    await stub.close();
    const e = await caught(client({ baseUrl: url, retries: 1 }).getPaymentOptions());
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toContain(url);
    expect(e.message).toMatch(/ECONNREFUSED/);
    expect(sleeps).toHaveLength(1);
    stub = await startStub();
  });

  it('does not retry 4xx or unreadable answers', async () => {
    for (const [reply, cls] of [
      [fail(401, 'Invalid public key'), AuthenticationError],
      [fail(403, 'not enabled'), ForbiddenError],
      [fail(404, 'no such route'), NotFoundError],
      [fail(422, 'transaction_type is not supported', { field: 'transaction_type' }), ValidationError],
      [
        {
          status: 200,
          body: '<!DOCTYPE html><html><body><h1>Gateway says hi</h1></body></html>',
          headers: { 'content-type': 'text/html' },
        },
        UnreadableResponseError,
      ],
    ] as const) {
      stub.reply(reply);
      stub.seen.length = 0;
      const e = await caught(client().getPaymentOptions({ transactionType: 'COLLECTION' }));
      expect(e).toBeInstanceOf(cls);
      expect(stub.seen).toHaveLength(1);
    }
  });
});

describe('error classes', () => {
  it('401: authentication, with the service message and what to fix', async () => {
    stub.reply(fail(401, 'Invalid secret key'));
    const e = await caught(client().getBalances());
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e.kind).toBe('authentication');
    expect(e.serviceMessage).toBe('Invalid secret key');
    expect(e.message).toMatch(/HTTP 401.*Invalid secret key.*Settings/);
  });

  it('a 200 whose body code says error is that error', async () => {
    stub.reply({ status: 200, body: { code: 401, status: 'error', message: 'keys revoked', data: null } });
    expect(await caught(client().getBalances())).toBeInstanceOf(AuthenticationError);
  });

  it('an HTML page: unreadable, with the status and a short excerpt', async () => {
    const html = `<!DOCTYPE html><html><head><title>Bad Gateway</title></head><body>${'<p>upstream error</p>'.repeat(50)}</body></html>`;
    stub.reply({ status: 200, body: html, headers: { 'content-type': 'text/html' } });
    const e = await caught(client().getBalances());
    expect(e).toBeInstanceOf(UnreadableResponseError);
    expect(e.status).toBe(200);
    const u = e as UnreadableResponseError;
    expect(u.excerpt).toMatch(/^Bad Gateway upstream error/);
    expect(u.excerpt.length).toBeLessThanOrEqual(161);
    expect(e.message).toMatch(/HTML page instead of JSON/);
  });

  it('a 5xx HTML page after retries: unavailable, and says it was HTML', async () => {
    stub.reply({
      status: 502,
      body: '<html><body>Bad Gateway</body></html>',
      headers: { 'content-type': 'text/html' },
    });
    const e = await caught(client({ retries: 0 }).getBalances());
    expect(e).toBeInstanceOf(UnavailableError);
    expect(e.message).toMatch(/HTTP 502.*HTML page.*Bad Gateway/);
  });

  it('truncated JSON and wrong types: unreadable, naming the field', async () => {
    stub.reply({ status: 200, body: '{"code":200,"status":"success","data":{"merchant_balances":[{"available_bal' });
    const t = await caught(client().getBalances());
    expect(t).toBeInstanceOf(UnreadableResponseError);
    expect(t.message).toMatch(/cut short or invalid/);

    stub.reply(ok({ merchant_balances: [BALANCE, { ...BALANCE, available_balance: 10.5 }] }));
    const w = await caught(client().getBalances());
    expect(w).toBeInstanceOf(UnreadableResponseError);
    expect(w.message).toMatch(/merchant_balances\[1\]\.available_balance: "10.5" has more decimals than UGX allows/);
  });

  it('secrets the service echoes are blanked from messages and excerpts', async () => {
    stub.reply((req) => ({
      status: 200,
      body: `<html>echo ${req.headers['secret-key']} ${req.headers['public-key']}</html>`,
    }));
    const e = (await caught(client().getBalances())) as UnreadableResponseError;
    expect(e.excerpt).toContain('[redacted]');
    expect(`${e.message} ${e.excerpt}`).not.toContain(KEYS.secretKey);
    expect(`${e.message} ${e.excerpt}`).not.toContain(KEYS.publicKey);
  });

  it('no keys: authentication error without a request', async () => {
    const e = await caught(client({ keys: () => ({ publicKey: KEYS.publicKey, secretKey: '' }) }).getBalances());
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(stub.seen).toHaveLength(0);
  });
});

describe('initialize is never retried', () => {
  it('5xx: unknown outcome after exactly one request', async () => {
    stub.reply(fail(500, 'internal error'), ACCEPTED);
    const e = await caught(client().initialize(REQ));
    expect(e).toBeInstanceOf(UnknownOutcomeError);
    expect((e as UnknownOutcomeError).reason).toBe('server_error');
    expect(e.message).toMatch(/same merchant_reference/);
    expect(stub.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('timeout, dropped connection, unreadable 2xx: unknown outcome', async () => {
    stub.reply({ hang: true });
    const t = await caught(client({ timeoutMs: 300 }).initialize(REQ));
    expect(t).toBeInstanceOf(UnknownOutcomeError);
    expect((t as UnknownOutcomeError).reason).toBe('timeout');

    stub.reply({ destroy: true });
    const d = await caught(client().initialize(REQ));
    expect(d).toBeInstanceOf(UnknownOutcomeError);
    expect((d as UnknownOutcomeError).reason).toBe('connection');

    stub.reply({ status: 202, body: '{"code":202,"status":"accepted","data":{"payment_url":"https://pa' });
    const u = await caught(client().initialize(REQ));
    expect(u).toBeInstanceOf(UnknownOutcomeError);
    expect((u as UnknownOutcomeError).reason).toBe('unreadable');

    stub.reply(ok({ internal_reference: 'INT-1' }, 202));
    expect((await caught(client().initialize(REQ))).message).toMatch(/payment_url: is missing/);
    expect(stub.seen).toHaveLength(4);
  });

  it('a refused connection: network error saying nothing was sent', async () => {
    const url = stub.baseUrl;
    await stub.close();
    const e = await caught(client({ baseUrl: url }).initialize(REQ));
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toMatch(/Nothing was sent/);
    stub = await startStub();
  });

  it('4xx: rejected with the field and the service message; 429 is rate limited', async () => {
    stub.reply(fail(422, 'description must be 10 to 30 characters', { field: 'description' }));
    const v = await caught(client().initialize(REQ));
    expect(v).toBeInstanceOf(ValidationError);
    expect(v).not.toBeInstanceOf(DuplicateReferenceError);
    expect((v as ValidationError).field).toBe('description');
    expect(v.serviceMessage).toBe('description must be 10 to 30 characters');
    expect(v.message).toBe('The service rejected description (HTTP 422): description must be 10 to 30 characters.');

    stub.reply(fail(400, 'redirect_url is required'));
    expect(((await caught(client().initialize(REQ))) as ValidationError).field).toBe('redirect_url');

    stub.reply(fail(401, 'Invalid keys'));
    expect(await caught(client().initialize(REQ))).toBeInstanceOf(AuthenticationError);

    stub.reply(fail(429, 'slow down', null, { 'retry-after': '2' }));
    const r = await caught(client().initialize(REQ));
    expect(r).toBeInstanceOf(RateLimitedError);
    expect((r as RateLimitedError).retryAfterMs).toBe(2000);
    expect(stub.seen).toHaveLength(4);
    expect(sleeps).toEqual([]);
  });

  it('422 duplicate reference: "it exists", with what the service says about it', async () => {
    stub.reply(
      fail(422, 'duplicate merchant_reference', {
        field: 'merchant_reference',
        internal_reference: 'INT-9',
        payment_url: 'https://pay.example/pay/tok9',
      }),
    );
    const e = await caught(client().initialize(REQ));
    expect(e).toBeInstanceOf(DuplicateReferenceError);
    const d = e as DuplicateReferenceError;
    expect(d).toMatchObject({
      field: 'merchant_reference',
      merchantReference: REQ.merchantReference,
      internalReference: 'INT-9',
      paymentUrl: 'https://pay.example/pay/tok9',
    });

    stub.reply(fail(409, 'reference already used'));
    const c = await caught(client().initialize(REQ));
    expect(c).toBeInstanceOf(DuplicateReferenceError);
    expect(c).toMatchObject({
      merchantReference: REQ.merchantReference,
      internalReference: undefined,
      paymentUrl: undefined,
    });
    // A 422 on another field that happens to say "duplicate" is not "it exists".
    stub.reply(fail(422, 'duplicate digits in customer_email', { field: 'customer_email' }));
    const v = await caught(client().initialize(REQ));
    expect(v).not.toBeInstanceOf(DuplicateReferenceError);
    expect((v as ValidationError).field).toBe('customer_email');
  });

  it('merchant_reference auto: returns the one the service made; a different one than sent is unknown', async () => {
    stub.reply(
      ok(
        { internal_reference: 'INT-2', merchant_reference: 'AUTO-123456', payment_url: 'https://pay.example/pay/t' },
        202,
      ),
    );
    expect((await client().initialize({ ...REQ, merchantReference: 'auto' })).merchantReference).toBe('AUTO-123456');
    expect(JSON.parse(stub.seen[0]!.body).merchant_reference).toBe('auto');
    const e = await caught(client().initialize(REQ));
    expect(e).toBeInstanceOf(UnknownOutcomeError);
    expect(e.message).toMatch(/different merchant_reference/);
  });

  it('never puts keys or the card cipher in errors or logs', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          lines.push(chunk.toString());
          cb();
        },
      }),
    );
    stub.reply((req) => ({ status: 500, body: `<html>${req.body} ${JSON.stringify(req.headers)}</html>` }));
    const e = await caught(client({ logger }).initialize(REQ));
    stub.reply((req) => ({ status: 200, body: `<html>${req.body} ${JSON.stringify(req.headers)}</html>` }));
    const u = await caught(client({ logger }).initialize(REQ));
    stub.reply({ status: 503, body: 'x' });
    await caught(client({ logger, retries: 1 }).getBalances());
    const all = [e.message, u.message, String(u.cause), JSON.stringify(e), JSON.stringify(u), ...lines].join('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const secret of [KEYS.secretKey, KEYS.publicKey, CIPHER]) expect(all).not.toContain(secret);
  });
});
