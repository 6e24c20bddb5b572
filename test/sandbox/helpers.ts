// Shared set-up for the sandbox tests: one RSA-4096 pair per test file (copied into each test's own
// state folder, which the sandbox then loads as its persisted keys), HTTP helpers, card ciphers.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { tempDir } from '../support/tmp.js';

let keyDir: string | undefined;
const running: Sandbox[] = [];

afterEach(async () => {
  while (running.length) await running.pop()!.close();
});
afterAll(() => {
  if (keyDir) fs.rmSync(keyDir, { recursive: true, force: true });
});

function sharedKeys(): string {
  if (keyDir) return keyDir;
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-sbx-keys-'));
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 4096 });
  fs.writeFileSync(path.join(keyDir, 'service_private_key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return keyDir;
}

/** A started sandbox in a fresh state folder (closed after the test). */
export async function sandbox(opts: Partial<SandboxOptions> = {}): Promise<Sandbox & { stateDir: string }> {
  const stateDir = opts.stateDir ?? tempDir('md-sbx-');
  if (!fs.existsSync(path.join(stateDir, 'service_private_key.pem'))) {
    fs.copyFileSync(path.join(sharedKeys(), 'service_private_key.pem'), path.join(stateDir, 'service_private_key.pem'));
  }
  const sb = await startSandbox({ timeScale: 1000, ...opts, stateDir });
  running.push(sb);
  return Object.assign(sb, { stateDir });
}

export interface Reply {
  status: number;
  headers: Headers;
  body: { code: number; status: string; message: string; data: Record<string, unknown> | null } & Record<
    string,
    unknown
  >;
}

export async function call(
  sb: Sandbox,
  method: 'GET' | 'POST',
  pathAndQuery: string,
  opts: { headers?: Record<string, string>; body?: unknown; keys?: 'both' | 'public' | 'none' } = {},
): Promise<Reply> {
  const keys = opts.keys ?? 'both';
  const headers: Record<string, string> = { 'x-api-version': '1', accept: 'application/json' };
  if (keys !== 'none') headers['public-key'] = sb.publicKey;
  if (keys === 'both') headers['secret-key'] = sb.secretKey;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, opts.headers ?? {});
  for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
  const res = await fetch(sb.baseUrl + pathAndQuery, {
    method,
    headers,
    body: opts.body === undefined ? null : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Reply['body'] };
}

export async function control<T = unknown>(
  sb: Sandbox,
  method: 'GET' | 'POST' | 'DELETE',
  p: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(sb.baseUrl + '/__sandbox' + p, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

export interface CardFields {
  first_name?: string;
  last_name?: string;
  card_no?: string;
  exp_month?: string;
  exp_year?: string;
  cvv?: string;
  [k: string]: string | undefined;
}

export const US_BILLING = {
  billing_address: '1 Main Street',
  billing_city: 'Springfield',
  billing_zip: '12345',
  billing_state: 'IL',
  billing_country: 'US',
};

export function card(overrides: CardFields = {}): CardFields {
  return {
    first_name: 'Ada',
    last_name: 'Lovelace',
    card_no: '4242424242424242',
    exp_month: '12',
    exp_year: String(new Date().getUTCFullYear() + 3),
    cvv: '123',
    ...overrides,
  };
}

/** RSA PKCS#1 v1.5 with the sandbox's public key, base64 (node's public encryption). */
export function encryptCard(sb: Sandbox, c: object | string): string {
  const text = typeof c === 'string' ? c : JSON.stringify(c);
  return crypto
    .publicEncrypt({ key: sb.servicePublicKeyPem, padding: crypto.constants.RSA_PKCS1_PADDING }, Buffer.from(text))
    .toString('base64');
}

/** The same, made by the openssl command. */
export function opensslEncrypt(sb: Sandbox, c: object): string {
  return execFileSync(
    'openssl',
    ['pkeyutl', '-encrypt', '-pubin', '-inkey', sb.servicePublicKeyPath, '-pkeyopt', 'rsa_padding_mode:pkcs1'],
    { input: JSON.stringify(c) },
  ).toString('base64');
}

let refSeq = 0;
export function newRef(prefix = 'TEST'): string {
  refSeq += 1;
  return `${prefix}-${Date.now().toString(36)}-${refSeq}`.toUpperCase();
}

export function initBody(sb: Sandbox, overrides: Record<string, unknown> = {}, cardFields: CardFields = {}) {
  return {
    merchant_reference: newRef(),
    transaction_method: 'CARD',
    currency: 'UGX',
    amount: 50000,
    customer_name: 'Ada Lovelace',
    customer_email: 'ada@example.com',
    card_cipher: encryptCard(sb, card(cardFields)),
    description: 'Order 1001 phone sale',
    charge_customer: false,
    allow_final_status_change: true,
    redirect_url: 'https://merchant.example/return',
    ...overrides,
  };
}

/** Initializes a collection and returns the 202 data. */
export async function initialize(sb: Sandbox, overrides: Record<string, unknown> = {}, cardFields: CardFields = {}) {
  const r = await call(sb, 'POST', '/collections/initialize', { body: initBody(sb, overrides, cardFields) });
  if (r.status !== 202) throw new Error(`initialize answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.data as { internal_reference: string; merchant_reference: string; payment_url: string };
}

export async function balances(sb: Sandbox, currency = 'UGX') {
  const r = await call(sb, 'GET', `/data/wallet-balances?currency=${currency}`);
  return (r.body.data as { merchant_balances: Record<string, number | string>[] }).merchant_balances;
}

export async function collectionWallet(sb: Sandbox, currency = 'UGX') {
  const w = (await balances(sb, currency)).find((b) => b.wallet_type === 'MERCHANT_COLLECTION')!;
  return w as { available_balance: number; actual_balance: number; uncleared_balance: number; reserve_balance: number };
}

/** openssl dgst -sha512 -verify over the signed string. */
export function opensslVerifyRsa(pubPath: string, text: string, sigB64: string): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-sig-'));
  try {
    fs.writeFileSync(path.join(dir, 'msg'), text);
    fs.writeFileSync(path.join(dir, 'sig'), Buffer.from(sigB64, 'base64'));
    const out = execFileSync(
      'openssl',
      ['dgst', '-sha512', '-verify', pubPath, '-signature', path.join(dir, 'sig'), path.join(dir, 'msg')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    return out.toString().includes('Verified OK');
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** openssl dgst -sha256 -hmac over the signed string, hex. */
export function opensslHmac(key: string, text: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', key], { input: text }).toString();
  return out.trim().split(/\s+/).pop()!;
}

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: { event: string; payload: Record<string, unknown> };
  raw: string;
}

/** A tiny callback receiver on 127.0.0.1. `answer` decides each status (default 200). */
export async function receiver(answer: (n: number, r: Received) => number = () => 200) {
  const http = await import('node:http');
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const r: Received = { headers: req.headers, body: JSON.parse(raw), raw };
      got.push(r);
      res.statusCode = answer(got.length, r);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  receivers.push(server);
  return {
    url: `http://127.0.0.1:${port}/callback`,
    got,
    /** Waits (polling) until at least n callbacks arrived. */
    async waitFor(n: number, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (got.length < n) {
        if (Date.now() > end) throw new Error(`only ${got.length} of ${n} callbacks arrived`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return got;
    },
  };
}
const receivers: import('node:http').Server[] = [];
afterEach(async () => {
  while (receivers.length) {
    const s = receivers.pop()!;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Submits the hosted page's form like a browser would; returns the 302 Location or the page. */
export async function submitPage(paymentUrl: string, fields: Record<string, string>) {
  const res = await fetch(paymentUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}
