// The service client, card cipher and signature checks against the real sandbox over HTTP on loopback.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { realSleep } from '../../main/clock.js';
import { createServiceClient, type ServiceClientOptions } from '../../main/service/client.js';
import { buildCardCipher } from '../../main/service/card-cipher.js';
import { validCardData } from '../support/card.js';
import { verifySignatures } from '../../main/service/signatures.js';
import { parseCallbackBody } from '../../main/service/callback-wire.js';
import {
  AuthenticationError,
  DuplicateReferenceError,
  NetworkError,
  RateLimitedError,
  ServiceError,
  UnavailableError,
  UnknownOutcomeError,
  UnreadableResponseError,
  ValidationError,
} from '../../main/service/errors.js';
import type { CardData, InitializeRequest, SignedFields } from '../../main/service/types.js';
import { openssl } from './openssl.js';
import { fileTempDir } from '../support/tmp.js';

const CARD: CardData = {
  first_name: 'Amina',
  last_name: 'Nakato',
  card_no: '4242424242424242',
  exp_month: '12',
  exp_year: '2031',
  cvv: '123',
};

let dir: string;
let sb: Sandbox;
let sleeps: number[];
let seq = 0;
const callbacks: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let receiver: http.Server;

beforeAll(async () => {
  dir = fileTempDir('md-svc-sandbox-');
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      callbacks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const cbUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
  sb = await startSandbox({ stateDir: dir, callbackUrl: cbUrl, timeScale: 100 });
});
afterAll(async () => {
  await sb?.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(() => {
  sb.controls.clearFaults();
  sleeps = [];
});

function client(over: Partial<ServiceClientOptions> = {}) {
  return createServiceClient({
    baseUrl: sb.baseUrl,
    keys: () => ({ publicKey: sb.publicKey, secretKey: sb.secretKey }),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    timeoutMs: 5_000,
    ...over,
  });
}

function ref(): string {
  return `SVC-IT-${process.pid}-${++seq}`;
}

function request(over: Partial<InitializeRequest> = {}): InitializeRequest {
  return {
    merchantReference: ref(),
    currency: 'KES',
    amountMinor: 150050,
    description: 'Phone order for Amina',
    cardCipher: buildCardCipher(validCardData(CARD), sb.servicePublicKeyPem),
    redirectUrl: 'https://merchant.example/return',
    customerName: 'Amina Nakato',
    ...over,
  };
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

describe('balances', () => {
  it('every wallet in minor units, actual = the sum of the others; the currency filter; a currency not held', async () => {
    const all = await client().getBalances();
    const keys = all.map((b) => `${b.currency}/${b.walletType}`).sort();
    for (const c of ['KES', 'TZS', 'UGX', 'USD']) {
      expect(keys).toContain(`${c}/MERCHANT_COLLECTION`);
      expect(keys).toContain(`${c}/MERCHANT_PAYOUT`);
    }
    for (const b of all) {
      expect(Number.isSafeInteger(b.availableMinor)).toBe(true);
      expect(b.actualMinor).toBe(b.availableMinor + b.unclearedMinor + b.reserveMinor);
    }
    expect(all.some((b) => b.actualMinor > 0)).toBe(true);

    const kes = await client().getBalances('kes');
    expect(kes.length).toBe(2);
    expect(kes.every((b) => b.currency === 'KES')).toBe(true);
    expect(await client().getBalances('EUR')).toEqual([]);
  });

  it('wrong keys: authentication error, not retried', async () => {
    const e = await caught(
      client({ keys: () => ({ publicKey: sb.publicKey, secretKey: 'sk_wrong_000000' }) }).getBalances(),
    );
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e.status).toBe(401);
    expect(e.serviceMessage).toMatch(/secret-key/);
    expect(sleeps).toEqual([]);
  });
});

describe('payment options', () => {
  it('filters by currency and COLLECTION; card and mobile money options; an inactive one exists', async () => {
    const ugx = await client().getPaymentOptions({ currency: 'UGX', transactionType: 'collection' });
    expect(ugx.length).toBeGreaterThan(1);
    expect(ugx.every((o) => o.currency === 'UGX' && o.transactionType.toUpperCase() === 'COLLECTION')).toBe(true);
    const card = ugx.find((o) => o.transactionMethod === 'CARD')!;
    expect(card.providerCode).toBe('CARD_UGX');
    expect(card.minMinor).toBeLessThan(card.maxMinor);
    expect(ugx.find((o) => o.transactionMethod === 'MOBILE_MONEY')!.optionPrefixes.length).toBeGreaterThan(0);
    const all = await client().getPaymentOptions();
    expect(all.some((o) => !o.isActive)).toBe(true);
    expect(new Set(all.map((o) => o.currency))).toEqual(new Set(['UGX', 'KES', 'TZS', 'USD']));
  });

  it('an unknown transaction type is a validation error naming the field', async () => {
    const e = await caught(client().getPaymentOptions({ transactionType: 'REFUND' }));
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.status).toBe(422);
    expect((e as ValidationError).field).toBe('transaction_type');
  });

  it('works with the public key alone (the secret key is not needed there)', async () => {
    const opts = await client({ keys: () => ({ publicKey: sb.publicKey, secretKey: '' }) }).getPaymentOptions({
      currency: 'USD',
    });
    expect(opts.length).toBeGreaterThan(0);
  });
});

describe('initialize', () => {
  it('202 with a payment URL; the sandbox decrypted our cipher and holds the amount exactly', async () => {
    const req = request();
    const a = await client().initialize(req);
    expect(a.httpStatus).toBe(202);
    expect(a.merchantReference).toBe(req.merchantReference);
    expect(a.paymentUrl.startsWith(`${sb.baseUrl}/pay/`)).toBe(true);
    const rec = sb.controls.collection(req.merchantReference);
    expect(rec).toMatchObject({
      status: 'PENDING',
      currency: 'KES',
      amount: 1500.5,
      internal_reference: a.internalReference,
      card: { last4: '4242' },
    });
  });

  it('accepts a cipher made by openssl from the sandbox PEM file', async () => {
    const json = JSON.stringify(CARD);
    const cipher = openssl(
      ['pkeyutl', '-encrypt', '-pubin', '-inkey', sb.servicePublicKeyPath, '-pkeyopt', 'rsa_padding_mode:pkcs1'],
      Buffer.from(json),
    ).toString('base64');
    const a = await client().initialize(request({ cardCipher: cipher, currency: 'UGX', amountMinor: 25000 }));
    expect(a.httpStatus).toBe(202);
  });

  it('merchant_reference "auto": the service makes one', async () => {
    const a = await client().initialize(request({ merchantReference: 'auto' }));
    expect(a.merchantReference).not.toBe('auto');
    expect(a.merchantReference.length).toBeGreaterThanOrEqual(8);
    expect(sb.controls.collection(a.merchantReference).status).toBe('PENDING');
  });

  it('each bad field: a validation error naming it, and nothing created', async () => {
    const before = sb.controls.state().collections;
    const otherKey = crypto
      .generateKeyPairSync('rsa', { modulusLength: 2048 })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    const noCvv = crypto
      .publicEncrypt(
        { key: sb.servicePublicKeyPem, padding: crypto.constants.RSA_PKCS1_PADDING },
        Buffer.from(JSON.stringify({ ...CARD, cvv: undefined })),
      )
      .toString('base64');
    const euCard = buildCardCipher(validCardData({ ...CARD, card_no: '4000002500000003' }), sb.servicePublicKeyPem);
    const cases: [Partial<InitializeRequest>, string, RegExp][] = [
      [{ description: 'short' }, 'description', /10 to 30 characters/],
      [{ merchantReference: 'abc' }, 'merchant_reference', /at least 8/],
      [{ redirectUrl: 'http://merchant.example/return' }, 'redirect_url', /https/],
      [{ amountMinor: 100 }, 'amount', /at least/],
      [{ currency: 'EUR' }, 'currency', /not held/],
      [{ cardCipher: buildCardCipher(validCardData(CARD), otherKey) }, 'card_cipher', /card_cipher/],
      [{ cardCipher: noCvv }, 'card_cipher.cvv', /cvv/],
      [{ cardCipher: euCard }, 'card_cipher.billing_address', /billing/],
    ];
    for (const [patch, field, msg] of cases) {
      const e = await caught(client().initialize(request(patch)));
      expect(e, field).toBeInstanceOf(ValidationError);
      expect(e).not.toBeInstanceOf(DuplicateReferenceError);
      expect((e as ValidationError).field).toBe(field);
      expect(e.serviceMessage).toMatch(msg);
    }
    expect(sb.controls.state().collections).toBe(before);
  });

  it('wrong keys: authentication error', async () => {
    const e = await caught(
      client({ keys: () => ({ publicKey: 'pk_nobody_123456', secretKey: sb.secretKey }) }).initialize(request()),
    );
    expect(e).toBeInstanceOf(AuthenticationError);
  });

  it('a re-sent reference is "it exists", carrying the existing collection', async () => {
    const req = request();
    const first = await client().initialize(req);
    const e = await caught(client().initialize(req));
    expect(e).toBeInstanceOf(DuplicateReferenceError);
    const d = e as DuplicateReferenceError;
    expect(d.merchantReference).toBe(req.merchantReference);
    expect(d.internalReference).toBe(first.internalReference);
    expect(d.paymentUrl).toBe(first.paymentUrl);
  });
});

describe('faults: GETs retry, initialize never does', () => {
  it('500, 503, an HTML 502 and a reset once: retried and answered', async () => {
    for (const kind of ['500', '503', 'html', 'reset'] as const) {
      sb.controls.addFault({ route: 'balances', kind, retry_after_s: 0 });
      sleeps = [];
      const b = await client().getBalances('UGX');
      expect(b.length, kind).toBe(2);
      expect(sleeps.length, kind).toBe(1);
      expect(sb.controls.state().faults).toEqual([]);
    }
  });

  it('persistent faults: the last error after the retries', async () => {
    sb.controls.addFault({ route: 'providers', kind: '503', times: 0, retry_after_s: 0 });
    const u = await caught(client({ retries: 2 }).getPaymentOptions());
    expect(u).toBeInstanceOf(UnavailableError);
    expect(u.status).toBe(503);
    expect(sleeps.length).toBe(2);

    sb.controls.clearFaults();
    sb.controls.addFault({ route: 'providers', kind: 'html', times: 0 });
    const h = await caught(client({ retries: 1 }).getPaymentOptions());
    expect(h).toBeInstanceOf(UnavailableError);
    expect(h.message).toMatch(/HTTP 502.*HTML page.*502 Bad Gateway/);

    sb.controls.clearFaults();
    sb.controls.addFault({ route: 'balances', kind: 'reset', times: 0 });
    expect(await caught(client({ retries: 1 }).getBalances())).toBeInstanceOf(NetworkError);
  });

  it('truncated JSON and wrong types: unreadable, naming the field, not retried', async () => {
    sb.controls.addFault({ route: 'balances', kind: 'truncated_json' });
    const t = await caught(client().getBalances());
    expect(t).toBeInstanceOf(UnreadableResponseError);
    expect(t.status).toBe(200);
    expect((t as UnreadableResponseError).excerpt).toMatch(/^\{"code":200/);

    sb.controls.addFault({ route: 'providers', kind: 'wrong_types' });
    const w = await caught(client().getPaymentOptions());
    expect(w).toBeInstanceOf(UnreadableResponseError);
    expect(w.message).toMatch(/payment_providers\[0\]\./);
    expect(sleeps).toEqual([]);
  });

  it('latency beyond the timeout: a network error', async () => {
    sb.controls.addFault({ route: 'balances', kind: 'latency', latency_ms: 1500, times: 0 });
    const e = await caught(client({ timeoutMs: 300, retries: 1 }).getBalances());
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toMatch(/No answer/);
  });

  it('a rate_limit fault: waits the Retry-After, then answers', async () => {
    sb.controls.addFault({ route: 'balances', kind: 'rate_limit', retry_after_s: 2 });
    await client().getBalances();
    expect(sleeps).toEqual([2000]);
  });

  it('the real rate limit is honoured: every call succeeds after waiting (real time)', async () => {
    sb.controls.config({ rate_limit_per_s: 2 });
    try {
      const c = client({
        sleep: async (ms, signal) => {
          sleeps.push(ms);
          await realSleep(ms, signal);
        },
      });
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await c.getPaymentOptions({ currency: 'UGX' }));
      expect(results.every((r) => r.length > 0)).toBe(true);
      expect(sleeps.length).toBeGreaterThan(0);
      expect(sleeps.every((s) => s >= 1000)).toBe(true);
    } finally {
      sb.controls.config({ rate_limit_per_s: 0 });
    }
  });

  it('drop_after_commit: unknown outcome; the collection exists; the same reference re-sent says so', async () => {
    sb.controls.addFault({ route: 'initialize', kind: 'drop_after_commit' });
    const req = request();
    const e = await caught(client().initialize(req));
    expect(e).toBeInstanceOf(UnknownOutcomeError);
    expect((e as UnknownOutcomeError).reason).toBe('connection');
    expect(sleeps).toEqual([]);
    const rec = sb.controls.collection(req.merchantReference);
    expect(rec.status).toBe('PENDING');
    const again = await caught(client().initialize(req));
    expect(again).toBeInstanceOf(DuplicateReferenceError);
    expect((again as DuplicateReferenceError).internalReference).toBe(rec.internal_reference);
  });

  it('initialize faults: 500, 503, HTML, reset, slow, truncated -> unknown outcome after one request each; 429 -> rate limited', async () => {
    const before = sb.controls.state().collections;
    for (const [kind, reason] of [
      ['500', 'server_error'],
      ['503', 'server_error'],
      ['html', 'server_error'],
      ['reset', 'connection'],
      ['latency', 'timeout'],
      ['truncated_json', 'unreadable'],
      ['wrong_types', 'unreadable'],
    ] as const) {
      sb.controls.addFault({ route: 'initialize', kind, latency_ms: 1500 });
      const e = await caught(client({ timeoutMs: 500 }).initialize(request()));
      expect(e, kind).toBeInstanceOf(UnknownOutcomeError);
      expect((e as UnknownOutcomeError).reason, kind).toBe(reason);
      sb.controls.clearFaults();
    }
    // truncated_json, wrong_types and latency let the request through: those collections exist.
    // (the slow one is created after the client gave up waiting: poll for it)
    for (let i = 0; i < 100 && sb.controls.state().collections < before + 3; i++) await realSleep(100);
    expect(sb.controls.state().collections).toBe(before + 3);
    sb.controls.addFault({ route: 'initialize', kind: 'rate_limit', retry_after_s: 3 });
    const r = await caught(client().initialize(request()));
    expect(r).toBeInstanceOf(RateLimitedError);
    expect((r as RateLimitedError).retryAfterMs).toBe(3000);
    expect(sleeps).toEqual([]);
  });
});

describe('signatures from the sandbox', () => {
  it('redirect and callback verify with the signing key and the service public key; tampering does not', async () => {
    const req = request({ currency: 'USD', amountMinor: 1050 });
    await client().initialize(req);
    const { redirect_url } = await sb.controls.complete(req.merchantReference, 'approve');
    const q = new URL(redirect_url).searchParams;
    const fields: SignedFields = {
      event: q.get('event')!,
      merchant_reference: q.get('merchant_reference')!,
      internal_reference: q.get('internal_reference')!,
      transaction_type: q.get('transaction_type')!,
      transaction_status: q.get('transaction_status')!,
    };
    expect(fields.transaction_status).toBe('COMPLETED');
    const keys = { signingKey: sb.signingKey, servicePublicKey: sb.servicePublicKeyPem };
    const given = { hmacHeader: q.get('hmac_signature'), rsaSignature: q.get('rsa_signature') };
    const v = verifySignatures(given, fields, keys);
    expect(v.state).toBe('verified');
    expect(v.hmac.state).toBe('valid');
    expect(v.rsa.state).toBe('valid');
    expect(verifySignatures(given, { ...fields, transaction_status: 'FAILED' }, keys).state).toBe('invalid');

    await sb.controls.callbacksSettled(10_000);
    const cb = callbacks.find((c) => c.body.includes(req.merchantReference))!;
    expect(cb).toBeDefined();
    const parsed = parseCallbackBody(JSON.parse(cb.body));
    expect(parsed.transactionStatus).toBe('COMPLETED');
    expect(parsed.requestAmountMinor).toBe(1050);
    const rec = sb.controls.collection(req.merchantReference);
    expect(parsed.internalReference).toBe(rec.internal_reference);
    expect(parsed.totalCreditMinor).toBe(Math.round(rec.total_credit * 100));
    const cv = verifySignatures(
      { hmacHeader: cb.headers['hmac-signature'] as string, rsaSignature: cb.headers['rsa-signature'] as string },
      parsed.signed,
      keys,
    );
    expect(cv.state).toBe('verified');
    expect(cv.rsa.state).toBe('valid');
    expect(
      verifySignatures({ hmacHeader: cb.headers['hmac-signature'] as string }, parsed.signed, {
        signingKey: 'not-the-key',
      }).state,
    ).toBe('invalid');
  });
});
