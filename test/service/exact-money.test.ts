// Issue 39: a service amount is read from the digits the service sent, never through a double. A balance
// of 74912820901925.32 was recorded as 74912820901925.31 (JSON.parse rounds before any reader runs); an
// amount that cannot be held exactly is refused, naming the field and the value as sent.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../main/service/client.js';
import { UnreadableResponseError } from '../../main/service/errors.js';
import { formatMinor } from '../../main/money/index.js';
import { readWireJson } from '../../main/service/wire-json.js';
import { startStub, type Stub } from './stub.js';
import { fuzzBudget } from '../fuzz/budget.js';

const KEYS = { publicKey: 'pk_test_PUBLIC_1234567', secretKey: 'sk_test_SECRET_7654321' };

let stub: Stub;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(async () => {
  await stub.close();
});

const client = () => createServiceClient({ baseUrl: stub.baseUrl, keys: () => KEYS, retries: 0, timeoutMs: 5_000 });

/** A balance answer written by hand, so each amount goes on the wire exactly as given (a JSON number or text). */
function balanceAnswer(available: string, currency = 'USD'): string {
  return (
    `{"code":200,"status":"success","message":"ok","data":{"merchant_balances":[{"available_balance":${available},` +
    `"actual_balance":0,"uncleared_balance":0,"reserve_balance":0,"currency":"${currency}","wallet_type":"MERCHANT_COLLECTION"}]}}`
  );
}

async function availableOf(available: string, currency = 'USD'): Promise<number> {
  stub.reply({
    status: 200,
    body: balanceAnswer(available, currency),
    headers: { 'content-type': 'application/json' },
  });
  const [b] = await client().getBalances();
  return b!.availableMinor;
}

async function refusal(available: string, currency = 'USD'): Promise<string> {
  stub.reply({
    status: 200,
    body: balanceAnswer(available, currency),
    headers: { 'content-type': 'application/json' },
  });
  const e = await client()
    .getBalances()
    .then(
      () => null,
      (x: unknown) => x,
    );
  expect(e).toBeInstanceOf(UnreadableResponseError);
  return (e as Error).message;
}

describe('balances read from the digits sent', () => {
  it('74912820901925.32 is 7491282090192532 cents, not ...31 (the issue)', async () => {
    expect(await availableOf('74912820901925.32')).toBe(7491282090192532);
    expect(formatMinor(await availableOf('74912820901925.32'), 'USD')).toBe('74912820901925.32');
  });

  it('the same amount sent as a string, and a short one as a number, are read the same way', async () => {
    expect(await availableOf('"74912820901925.32"')).toBe(7491282090192532);
    expect(await availableOf('1500.5')).toBe(150050);
  });

  it('an amount too large to hold exactly is refused, naming the field and the value as sent', async () => {
    const m = await refusal('123456789012345678.91');
    expect(m).toContain('merchant_balances[0].available_balance');
    expect(m).toContain('123456789012345678.91');
    const m2 = await refusal('1e400', 'UGX');
    expect(m2).toContain('merchant_balances[0].available_balance');
    expect(m2).toContain('1e400');
  });
});

/** A decimal of 1 to 18 significant digits with 0 to 3 decimals, as text ("-0.05", "74912820901925.32"). */
const decimalText = fc
  .record({
    negative: fc.boolean(),
    digits: fc.integer({ min: 1, max: 18 }).chain((n) => fc.stringMatching(new RegExp(`^[1-9][0-9]{${n - 1}}$`))),
    decimals: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ negative, digits, decimals }) => {
    const cut = Math.max(0, digits.length - decimals);
    const whole = digits.slice(0, cut) || '0';
    const frac = decimals === 0 ? '' : '.' + digits.slice(cut).padStart(decimals, '0');
    return (negative ? '-' : '') + whole + frac;
  });

/** The exact minor units of `text` in a currency of `exp` decimals, or null when it cannot be held exactly. */
function exactMinor(text: string, exp: number): number | null {
  const [w, f = ''] = text.replace('-', '').split('.');
  const frac = f.replace(/0+$/, '');
  if (frac.length > exp) return null;
  const big = BigInt(w! + frac.padEnd(exp, '0')) * (text.startsWith('-') ? -1n : 1n);
  if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < -BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return Number(big);
}

describe('property: any decimal of up to 18 significant digits is stored exactly or refused, never altered', () => {
  it('as a JSON number and as a string, in currencies of 0, 2 and 3 decimals', async () => {
    await fuzzBudget('exact-money', 1).check(
      'balance amounts',
      fc.asyncProperty(decimalText, fc.constantFrom('UGX', 'USD', 'KWD'), fc.boolean(), async (text, cur, quoted) => {
        const exp = cur === 'UGX' ? 0 : cur === 'USD' ? 2 : 3;
        const sent = quoted ? `"${text}"` : text;
        stub.reply({ status: 200, body: balanceAnswer(sent, cur) });
        const got = await client()
          .getBalances()
          .then(
            (b) => b[0]!.availableMinor,
            (e: unknown) => e,
          );
        const want = exactMinor(text, exp);
        if (want === null) {
          expect(got).toBeInstanceOf(UnreadableResponseError);
          expect((got as Error).message).toContain('available_balance');
        } else expect(got).toBe(want);
      }),
      300,
    );
  });
});

describe('readWireJson', () => {
  it('keeps a number a double cannot hold as the text sent, and every other value as JSON.parse reads it', () => {
    const r = readWireJson('{"a":74912820901925.32,"b":[1.5,-0,12345678901234567890,"x",true,null],"c":1e400}');
    expect(r).toEqual({
      ok: true,
      value: { a: '74912820901925.32', b: [1.5, -0, '12345678901234567890', 'x', true, null], c: '1e400' },
    });
  });

  it('a key given twice keeps its last value, as JSON.parse does', () => {
    expect(readWireJson('{"a":1,"a":74912820901925.32}')).toEqual({ ok: true, value: { a: '74912820901925.32' } });
  });

  it('refuses text past its depth or size before parsing, and says what is wrong', () => {
    expect(readWireJson('['.repeat(8000) + ']'.repeat(8000))).toMatchObject({ ok: false, reason: 'too_deep' });
    expect(readWireJson('"' + 'x'.repeat(100) + '"', { maxDepth: 4, maxBytes: 50 })).toMatchObject({
      ok: false,
      reason: 'too_large',
    });
    expect(readWireJson('{"a":')).toMatchObject({ ok: false, reason: 'not_json' });
  });
});

describe('an answer past the limits the desk reads within', () => {
  it('an endless body is let go past 4 MiB and refused as too large, not read into memory whole', async () => {
    const big =
      '{"code":200,"status":"success","data":{"merchant_balances":[],"pad":"' + 'x'.repeat(6 * 1024 * 1024) + '"}}';
    stub.reply({ status: 200, body: big, headers: { 'content-type': 'application/json' } });
    const e = await client()
      .getBalances()
      .then(
        () => null,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(UnreadableResponseError);
    expect((e as Error).message).toMatch(/the balance inquiry .*more than the 4194304 allowed/);
  });

  it('an answer nested past 16 levels is refused before any reader recurses into it', async () => {
    const deep =
      '{"code":200,"status":"success","data":{"merchant_balances":' + '['.repeat(9000) + ']'.repeat(9000) + '}}';
    stub.reply({ status: 200, body: deep, headers: { 'content-type': 'application/json' } });
    const e = await client()
      .getBalances()
      .then(
        () => null,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(UnreadableResponseError);
    expect((e as Error).message).toContain('nested more than 16 levels deep');
  });
});
