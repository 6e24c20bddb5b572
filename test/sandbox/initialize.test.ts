import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  balances,
  call,
  card,
  control,
  encryptCard,
  initBody,
  initialize,
  opensslEncrypt,
  sandbox,
  US_BILLING,
} from './helpers.js';
import type { Sandbox } from '../../sandbox/index.js';

async function snapshot(sb: Sandbox) {
  const state = (await (await fetch(sb.baseUrl + '/__sandbox/state')).json()) as { collections: number };
  return { collections: state.collections, balances: JSON.stringify(await balances(sb, 'UGX')) };
}

type Case = [
  name: string,
  body: (sb: Sandbox) => Record<string, unknown>,
  status: number,
  field: string,
  message: RegExp,
];

const pastYear = String(new Date().getUTCFullYear() - 1);

const CASES: Case[] = [
  [
    'missing merchant_reference',
    (sb) => initBody(sb, { merchant_reference: undefined }),
    400,
    'merchant_reference',
    /merchant_reference is required/,
  ],
  [
    'short merchant_reference',
    (sb) => initBody(sb, { merchant_reference: 'ABC1234' }),
    422,
    'merchant_reference',
    /at least 8 characters/,
  ],
  [
    'non-string merchant_reference',
    (sb) => initBody(sb, { merchant_reference: 12345678 }),
    422,
    'merchant_reference',
    /merchant_reference/,
  ],
  [
    'missing transaction_method',
    (sb) => initBody(sb, { transaction_method: undefined }),
    400,
    'transaction_method',
    /transaction_method is required/,
  ],
  [
    'transaction_method not CARD',
    (sb) => initBody(sb, { transaction_method: 'MOBILE_MONEY' }),
    422,
    'transaction_method',
    /must be CARD/,
  ],
  ['missing currency', (sb) => initBody(sb, { currency: undefined }), 400, 'currency', /currency is required/],
  ['currency not ISO', (sb) => initBody(sb, { currency: 'UG' }), 422, 'currency', /3-letter/],
  ['lower-case currency', (sb) => initBody(sb, { currency: 'ugx' }), 422, 'currency', /3-letter/],
  ['currency not held', (sb) => initBody(sb, { currency: 'EUR' }), 422, 'currency', /not held/],
  ['missing amount', (sb) => initBody(sb, { amount: undefined }), 400, 'amount', /amount is required/],
  ['amount as text', (sb) => initBody(sb, { amount: '50000' }), 422, 'amount', /number/],
  ['amount with decimals UGX has not', (sb) => initBody(sb, { amount: 500.5 }), 422, 'amount', /decimals/],
  [
    'amount too many decimals for KES',
    (sb) => initBody(sb, { currency: 'KES', amount: 100.123 }),
    422,
    'amount',
    /decimals/,
  ],
  ['amount zero', (sb) => initBody(sb, { amount: 0 }), 422, 'amount', /greater than 0/],
  ['amount negative', (sb) => initBody(sb, { amount: -5000 }), 422, 'amount', /greater than 0/],
  ['amount under the card minimum', (sb) => initBody(sb, { amount: 999 }), 422, 'amount', /at least UGX 1,000/],
  [
    'amount over the card maximum',
    (sb) => initBody(sb, { amount: 10_000_001 }),
    422,
    'amount',
    /at most UGX 10,000,000/,
  ],
  [
    'missing description',
    (sb) => initBody(sb, { description: undefined }),
    400,
    'description',
    /description is required/,
  ],
  [
    'description of 9 characters',
    (sb) => initBody(sb, { description: '123456789' }),
    422,
    'description',
    /description must be 10 to 30 characters/,
  ],
  [
    'description of 31 characters',
    (sb) => initBody(sb, { description: 'x'.repeat(31) }),
    422,
    'description',
    /description must be 10 to 30 characters/,
  ],
  [
    'missing redirect_url',
    (sb) => initBody(sb, { redirect_url: undefined }),
    400,
    'redirect_url',
    /redirect_url is required/,
  ],
  [
    'http redirect_url',
    (sb) => initBody(sb, { redirect_url: 'http://merchant.example/return' }),
    422,
    'redirect_url',
    /https/,
  ],
  ['relative redirect_url', (sb) => initBody(sb, { redirect_url: '/return' }), 422, 'redirect_url', /https/],
  [
    'redirect_url with a password',
    (sb) => initBody(sb, { redirect_url: 'https://u:p@merchant.example/r' }),
    422,
    'redirect_url',
    /password/,
  ],
  ['bad customer_email', (sb) => initBody(sb, { customer_email: 'not-an-email' }), 422, 'customer_email', /e-mail/],
  [
    'charge_customer not boolean',
    (sb) => initBody(sb, { charge_customer: 'yes' }),
    422,
    'charge_customer',
    /true or false/,
  ],
  [
    'allow_final_status_change not boolean',
    (sb) => initBody(sb, { allow_final_status_change: 1 }),
    422,
    'allow_final_status_change',
    /true or false/,
  ],
  [
    'missing card_cipher',
    (sb) => initBody(sb, { card_cipher: undefined }),
    400,
    'card_cipher',
    /card_cipher is required/,
  ],
  ['card_cipher not base64', (sb) => initBody(sb, { card_cipher: 'not base64 at all!' }), 422, 'card_cipher', /base64/],
  [
    'card_cipher under another key',
    () => ({ ...initBody(fakeSb(), {}), card_cipher: foreignCipher() }),
    422,
    'card_cipher',
    /could not be decrypted/,
  ],
  [
    'card_cipher that is not JSON',
    (sb) => initBody(sb, { card_cipher: encryptCard(sb, 'not json') }),
    422,
    'card_cipher',
    /JSON object/,
  ],
  ...(['first_name', 'last_name', 'card_no', 'exp_month', 'exp_year', 'cvv'] as const).map((f): Case => [
    `card without ${f}`,
    (sb) => initBody(sb, { card_cipher: encryptCard(sb, card({ [f]: undefined })) }),
    422,
    `card_cipher.${f}`,
    new RegExp(`card_cipher\\.${f} is required`),
  ]),
  [
    'card number failing Luhn',
    (sb) => initBody(sb, {}, { card_no: '4242424242424241' }),
    422,
    'card_cipher.card_no',
    /not a valid card number/,
  ],
  [
    'card number too short',
    (sb) => initBody(sb, {}, { card_no: '42424242' }),
    422,
    'card_cipher.card_no',
    /12 to 19 digits/,
  ],
  ['exp_month 13', (sb) => initBody(sb, {}, { exp_month: '13' }), 422, 'card_cipher.exp_month', /01 to 12/],
  ['exp_month single digit', (sb) => initBody(sb, {}, { exp_month: '7' }), 422, 'card_cipher.exp_month', /two digits/],
  ['expired card', (sb) => initBody(sb, {}, { exp_year: pastYear }), 422, 'card_cipher.exp_year', /expired/],
  ['cvv of 2 digits', (sb) => initBody(sb, {}, { cvv: '12' }), 422, 'card_cipher.cvv', /3 or 4 digits/],
  [
    'US card without billing_address',
    (sb) => initBody(sb, {}, { card_no: '5555555555554444', ...US_BILLING, billing_address: undefined }),
    422,
    'card_cipher.billing_address',
    /USA, Canada or Europe/,
  ],
  [
    'EU card without billing_zip',
    (sb) =>
      initBody(sb, {}, { card_no: '4000002500000003', ...US_BILLING, billing_country: 'DE', billing_zip: undefined }),
    422,
    'card_cipher.billing_zip',
    /required/,
  ],
  [
    'billing_country of 3 letters',
    (sb) => initBody(sb, {}, { ...US_BILLING, billing_country: 'USA' }),
    422,
    'card_cipher.billing_country',
    /2-letter/,
  ],
];

let other: crypto.KeyObject | undefined;
function foreignCipher(): string {
  other ??= crypto.generateKeyPairSync('rsa', { modulusLength: 4096 }).publicKey;
  return crypto
    .publicEncrypt({ key: other, padding: crypto.constants.RSA_PKCS1_PADDING }, Buffer.from(JSON.stringify(card())))
    .toString('base64');
}
function fakeSb(): Sandbox {
  // initBody only needs a key to build a valid cipher that is then replaced
  other ??= crypto.generateKeyPairSync('rsa', { modulusLength: 4096 }).publicKey;
  return { servicePublicKeyPem: other.export({ type: 'spki', format: 'pem' }).toString() } as Sandbox;
}

describe('sandbox initialize: every rule names the field and changes nothing', () => {
  it.each(CASES)('%s', async (_name, body, status, field, message) => {
    const sb = await sandbox();
    const before = await snapshot(sb);
    const r = await call(sb, 'POST', '/collections/initialize', { body: body(sb) });
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(status);
    expect(r.body.status).toBe('error');
    expect(r.body.data).toMatchObject({ field });
    expect(r.body.message).toMatch(message);
    expect(await snapshot(sb)).toEqual(before);
  });

  it('never echoes card data in an error', async () => {
    const sb = await sandbox();
    const r = await call(sb, 'POST', '/collections/initialize', {
      body: initBody(sb, {}, { card_no: '4242424242424241', cvv: '987' }),
    });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).not.toMatch(/4242424242424241|987/);
  });

  it('keeps no card data: only brand and last four reach the state folder', async () => {
    const sb = await sandbox();
    const c = await initialize(
      sb,
      {},
      { first_name: 'Zebediah', last_name: 'Quibble', card_no: '4000000000003220', cvv: '7319' },
    );
    await control(sb, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'approve' });
    const rec = (await control<Record<string, unknown>>(sb, 'GET', `/collections/${c.merchant_reference}`)).body;
    expect(rec.card).toEqual({ brand: 'VISA', last4: '3220' });
    await sb.close();
    const files = fs.readdirSync(sb.stateDir);
    expect(files).toContain('sandbox.sqlite');
    for (const f of files) {
      const bytes = fs.readFileSync(path.join(sb.stateDir, f)).toString('latin1');
      for (const secret of ['4000000000003220', 'Zebediah', 'Quibble', '"cvv"', '7319"']) {
        expect(bytes.includes(secret), `${secret} in ${f}`).toBe(false);
      }
    }
  });

  it('rejects a body that is not JSON, or not an object, with 400', async () => {
    const sb = await sandbox();
    const a = await call(sb, 'POST', '/collections/initialize', { body: '{"merchant_reference":' });
    expect(a.status).toBe(400);
    expect(a.body.message).toMatch(/not valid JSON/);
    const b = await call(sb, 'POST', '/collections/initialize', { body: '[1,2]' });
    expect(b.status).toBe(400);
    expect(b.body.message).toMatch(/JSON object/);
  });

  it('accepts a valid request with 202 and a payment_url on the sandbox', async () => {
    const sb = await sandbox();
    const body = initBody(sb);
    const r = await call(sb, 'POST', '/collections/initialize', { body });
    expect(r.status).toBe(202);
    expect(r.body.code).toBe(202);
    expect(r.body.status).toBe('accepted');
    const data = r.body.data as Record<string, string>;
    expect(data.merchant_reference).toBe(body.merchant_reference);
    expect(data.internal_reference).toMatch(/^SBX/);
    expect(data.payment_url).toMatch(new RegExp(`^${sb.baseUrl}/pay/[A-Za-z0-9_-]+$`));
    const page = await fetch(data.payment_url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('4242');
  });

  it('decrypts a card_cipher made by the openssl command', async () => {
    const sb = await sandbox();
    const cipher = opensslEncrypt(sb, card({ card_no: '4000000000000002' }));
    const r = await call(sb, 'POST', '/collections/initialize', { body: initBody(sb, { card_cipher: cipher }) });
    expect(r.status).toBe(202);
    const ref = (r.body.data as { merchant_reference: string }).merchant_reference;
    const rec = await (await fetch(`${sb.baseUrl}/__sandbox/collections/${ref}`)).json();
    expect(rec.card).toEqual({ brand: 'VISA', last4: '0002' });
  });

  it('accepts US and EU cards when every billing field is there', async () => {
    const sb = await sandbox();
    await initialize(sb, {}, { card_no: '5555555555554444', ...US_BILLING });
    await initialize(sb, {}, { card_no: '4000002500000003', ...US_BILLING, billing_country: 'DE' });
  });

  it('"auto" makes a reference and returns it', async () => {
    const sb = await sandbox();
    const a = await initialize(sb, { merchant_reference: 'auto' });
    const b = await initialize(sb, { merchant_reference: 'auto' });
    expect(a.merchant_reference).not.toBe('auto');
    expect(a.merchant_reference.length).toBeGreaterThanOrEqual(8);
    expect(a.merchant_reference).not.toBe(b.merchant_reference);
  });

  it('a duplicate merchant_reference is 422 "duplicate" with the existing collection, and creates nothing', async () => {
    const sb = await sandbox();
    const body = initBody(sb);
    const first = await call(sb, 'POST', '/collections/initialize', { body });
    const before = await snapshot(sb);
    const again = await call(sb, 'POST', '/collections/initialize', { body });
    expect(again.status).toBe(422);
    expect(again.body.message).toMatch(/duplicate/);
    expect(again.body.data).toEqual({
      field: 'merchant_reference',
      internal_reference: (first.body.data as Record<string, string>).internal_reference,
      payment_url: (first.body.data as Record<string, string>).payment_url,
    });
    expect(await snapshot(sb)).toEqual(before);
  });

  it('enforces the remaining daily total of the card option', async () => {
    const sb = await sandbox();
    // USD card: max 5,000.00 per payment, 20,000.00 a day
    for (let i = 0; i < 4; i++) await initialize(sb, { currency: 'USD', amount: 5000 });
    const before = await snapshot(sb);
    const r = await call(sb, 'POST', '/collections/initialize', {
      body: initBody(sb, { currency: 'USD', amount: 0.01 * 100 }),
    });
    expect(r.status).toBe(422);
    expect(r.body.data).toEqual({ field: 'amount' });
    expect(r.body.message).toMatch(/daily total.*USD 0\.00 left/);
    expect(await snapshot(sb)).toEqual(before);
    // the next day (sandbox clock) there is room again
    await fetch(`${sb.baseUrl}/__sandbox/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 24 * 3600_000 }),
    });
    await initialize(sb, { currency: 'USD', amount: 1 });
  });
});
