// The repeat-charge guard remembers "this card, this amount, a few minutes ago" as a keyed hash, never
// the card: after a charge, nothing in this process's heap holds the card number, nor an unkeyed hash
// of it that could be reversed by trying card numbers, and yet the same card is recognised.
// The sandbox runs in a child process so its own decrypting of the card is not in this heap.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { createServiceClient } from '../../main/service/client.js';
import { createChargeService, type ChargeService } from '../../main/collections/charge/service.js';
import { systemClock } from '../../main/clock.js';
import { appRoot } from '../../main/app/paths.js';
import { testLedger } from '../support/ledger.js';
import { fileTempDir } from '../support/tmp.js';

const { ledger } = testLedger();

// The card number as bytes only: a JS string of it would itself be in the heap we search. A Visa number
// (Luhn-valid) that appears nowhere in the code.
const CARD = Buffer.from([52, 53, 55, 49, 55, 51, 57, 48, 50, 56, 49, 54, 51, 53, 53, 50]);

let dir: string;
let sandbox: ChildProcess;
let db: Db;
let charges: ChargeService;

beforeAll(async () => {
  dir = fileTempDir('md-guard-');
  sandbox = spawn(
    process.execPath,
    ['--import', 'tsx', 'main/cli/main.ts', 'sandbox', '--port', '0', '--state-dir', path.join(dir, 'sandbox')],
    {
      cwd: appRoot(),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: sandbox.stdout! }).once('line', resolve);
    sandbox.once('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
  });
  const info = JSON.parse(first) as {
    base_url: string;
    public_key: string;
    secret_key: string;
    service_public_key_path: string;
  };
  const pem = fs.readFileSync(info.service_public_key_path, 'utf8');
  db = openDatabase(path.join(dir, 'merchant-desk.sqlite'));
  const client = createServiceClient({
    baseUrl: info.base_url,
    keys: () => ({ publicKey: info.public_key, secretKey: info.secret_key }),
  });
  charges = createChargeService({
    db,
    ledger,
    getClient: () => client,
    getServicePublicKeyPem: () => pem,
    clock: systemClock,
    paymentWindow: { open: () => Promise.resolve({ kind: 'closed' }) },
    redirectUrl: 'https://merchant-desk.invalid/return',
    operator: 'Test Agent',
  });
}, 60_000);

afterAll(() => {
  charges?.dispose();
  db?.close();
  sandbox?.kill();
});

function form() {
  return {
    amount: '25000',
    currency: 'UGX',
    description: 'Phone order 4711',
    chargeCustomer: false,
    allowFinalStatusChange: false,
    card: {
      number: CARD.toString('latin1'),
      expMonth: '12',
      expYear: '2031',
      cvv: '123',
      firstName: 'Amina',
      lastName: 'Nakato',
    },
  };
}

/** Hex of a digest as bytes (again: no JS string of it). */
function hexBytes(digest: Buffer): Buffer {
  const out = Buffer.alloc(digest.length * 2);
  const hex = Buffer.from('0123456789abcdef');
  digest.forEach((b, i) => {
    out[2 * i] = hex[b >> 4]!;
    out[2 * i + 1] = hex[b & 15]!;
  });
  return out;
}

/** The whole heap (a snapshot collects garbage first) as bytes. */
async function heap(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of v8.getHeapSnapshot()) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

it('holds no card number, only a keyed hash, and still recognises the same card', async () => {
  const first = await charges.charge(form());
  expect(first.outcome.kind).toBe('window_closed'); // sent, PENDING, window closed: the guard is armed
  expect(first.collection?.cardLast4).toBe('3552');

  const snapshot = await heap();
  expect(snapshot.indexOf(CARD)).toBe(-1);
  // Not an unkeyed digest either (anyone could find the card from it by trying numbers).
  for (const unkeyed of [
    crypto.createHash('sha256').update(CARD).digest(),
    crypto
      .createHash('sha256')
      .update(Buffer.concat([CARD, Buffer.from('|25000|UGX')]))
      .digest(),
  ]) {
    expect(snapshot.indexOf(hexBytes(unkeyed))).toBe(-1);
  }

  // The guard still knows this card and amount.
  const again = await charges.charge(form());
  expect(again.outcome.kind).toBe('needs_confirmation');
  // While the agent is asked to confirm, what waits is the encrypted card, not the card.
  expect((await heap()).indexOf(CARD)).toBe(-1);
  if (again.outcome.kind === 'needs_confirmation') charges.cancelRepeat(again.outcome.token);
  expect((await heap()).indexOf(CARD)).toBe(-1);

  // The search does find a card number that is held (so the -1s above mean something).
  const held = [CARD.toString('latin1')];
  expect((await heap()).indexOf(CARD)).toBeGreaterThan(-1);
  held.length = 0;
}, 120_000);
