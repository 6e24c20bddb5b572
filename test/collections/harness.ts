// Real parts for payments tests: a temp data folder with a real SQLite file, the sandbox over HTTP on
// 127.0.0.1, the local callback receiver, the real service client, and a payment window stand-in
// that finishes the payment with the sandbox's controls (the shells' windows are tested in e2e).
import fs from 'node:fs';
import { expect } from 'vitest';
import path from 'node:path';
import { startSandbox, type Sandbox, type CompleteOutcome } from '../../sandbox/index.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { createServiceClient } from '../../main/service/client.js';
import { createChargeService, type ChargeService } from '../../main/collections/charge/service.js';
import { startCallbackReceiver, type CallbackReceiver } from '../../main/callbacks/receiver.js';
import type { PaymentWindowOpener, PaymentWindowResult } from '../../main/collections/payment-window.js';
import type { CardForm } from '../../main/collections/card-input.shared.js';
import type { ChargeServiceDeps } from '../../main/collections/charge/types.js';
import type { IngestOutcome } from '../../main/callbacks/ingest.js';
import { systemClock } from '../../main/clock.js';
import { tempDir } from '../support/tmp.js';
import { sqliteCallbackStore } from '../../main/callbacks/callback-store.js';
import type { Ledger } from '../../main/collections/ledger.js';
import { testLedger } from '../support/ledger.js';

export const REDIRECT_URL = 'https://merchant-desk.invalid/return';

/** What the fake window does once the page is open: finish it, or close it. */
export type WindowPlan =
  | { action: 'complete'; outcome: CompleteOutcome; callbackFirst?: boolean }
  | { action: 'close' }
  | { action: 'throw' }
  | { action: 'redirect'; url: (real: string) => string; outcome: CompleteOutcome }
  /** Drive the hosted page over HTTP like a browser: POST each form in turn; the last answers 302 to the redirect URL. */
  | { action: 'page'; posts: Record<string, string>[] };

export interface Harness {
  dataDir: string;
  db: Db;
  /** What the receiver and the charges store events through (composed as the app composes it). */
  ledger: Ledger;
  sandbox: Sandbox;
  receiver: CallbackReceiver;
  charges: ChargeService;
  ingested: IngestOutcome[];
  /** The next window opened follows this plan (default: approve). */
  plan: WindowPlan;
  windowsOpened: number;
  close(): Promise<void>;
}

export function referenceForPaymentUrl(db: Db, paymentUrl: string): string {
  const r = db.prepare(`SELECT merchant_reference FROM collections WHERE payment_url = ?`).get(paymentUrl) as
    { merchant_reference: string } | undefined;
  if (!r) throw new Error(`no collection with payment_url ${paymentUrl}`);
  return r.merchant_reference;
}

export async function startHarness(
  opts: { window?: boolean; deps?: Partial<ChargeServiceDeps> } = {},
): Promise<Harness> {
  const dataDir = tempDir('md-pay-');
  const db = openDatabase(path.join(dataDir, 'merchant-desk.db'));
  const { ledger } = testLedger();
  const sandbox = await startSandbox({ stateDir: path.join(dataDir, 'sandbox'), timeScale: 1000 });
  const ingested: IngestOutcome[] = [];
  const receiver = await startCallbackReceiver({
    db,
    store: sqliteCallbackStore(db, ledger),
    clock: systemClock,
    getKeys: () => ({ signingKey: sandbox.signingKey, servicePublicKey: sandbox.servicePublicKeyPem }),
    onIngest: (o) => ingested.push(o),
  });
  sandbox.controls.config({ callback_url: receiver.url });
  const client = createServiceClient({
    baseUrl: sandbox.baseUrl,
    keys: () => ({ publicKey: sandbox.publicKey, secretKey: sandbox.secretKey }),
    timeoutMs: 10_000,
  });
  const h: Harness = {
    dataDir,
    db,
    ledger,
    sandbox,
    receiver,
    ingested,
    plan: { action: 'complete', outcome: 'approve' },
    windowsOpened: 0,
    charges: undefined as unknown as ChargeService,
    close: async () => {
      h.charges.dispose();
      await h.receiver.close();
      await sandbox.close();
      db.close();
    },
  };
  const opener: PaymentWindowOpener = {
    async open({ paymentUrl, redirectUrl }): Promise<PaymentWindowResult> {
      h.windowsOpened += 1;
      expect(redirectUrl).toBe(REDIRECT_URL);
      const plan = h.plan;
      if (plan.action === 'close') return { kind: 'closed' };
      if (plan.action === 'throw') throw new Error('the window could not be created');
      if (plan.action === 'page') {
        const page = await fetch(paymentUrl);
        expect(page.status).toBe(200);
        const html = await page.text();
        expect(html).toMatch(/•••• \d{4}/);
        let location: string | null = null;
        for (const form of plan.posts) {
          const res = await fetch(paymentUrl, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });
          if (res.status === 302) location = res.headers.get('location');
          else expect(res.status).toBe(200);
        }
        if (!location) throw new Error('the payment page did not redirect');
        return { kind: 'redirect', url: location };
      }
      const ref = referenceForPaymentUrl(db, paymentUrl);
      const { redirect_url } = await sandbox.controls.complete(ref, plan.outcome);
      if (plan.action === 'complete' && plan.callbackFirst) await sandbox.controls.callbacksSettled(10_000);
      return { kind: 'redirect', url: plan.action === 'redirect' ? plan.url(redirect_url) : redirect_url };
    },
  };
  h.charges = createChargeService({
    db,
    ledger,
    getClient: () => client,
    getServicePublicKeyPem: () => sandbox.servicePublicKeyPem,
    getSigningKey: () => sandbox.signingKey,
    clock: systemClock,
    ...(opts.window === false ? {} : { paymentWindow: opener }),
    redirectUrl: REDIRECT_URL,
    operator: 'Test Agent',
    ...opts.deps,
  });
  return h;
}

export const CARDS = {
  approve: '4242 4242 4242 4242',
  mastercardUS: '5555 5555 5555 4444',
  eu: '4000 0025 0000 0003',
  decline: '4000 0000 0000 0002',
  insufficient: '4000 0000 0000 9995',
  challenge: '4000 0000 0000 3220',
  flip: '4000 0000 0000 0259',
} as const;
export const CVVS = ['123', '987', '456', '321', '654', '789', '246'];

let n = 0;
export function cardForm(number: string, over: Partial<CardForm> = {}): CardForm {
  n += 1;
  return {
    amount: '25000',
    currency: 'UGX',
    description: 'Phone order ' + String(1000 + n),
    customerName: 'Amina Nakato',
    customerEmail: 'amina@example.com',
    chargeCustomer: false,
    allowFinalStatusChange: true,
    ...over,
    card: {
      number,
      expMonth: '12',
      expYear: '2031',
      cvv: CVVS[n % CVVS.length]!,
      firstName: 'Amina',
      lastName: 'Nakato',
    },
  };
}

/** Every byte of every file under `dir`, for scanning (the SQLite file, -wal, -shm, logs, sandbox state). */
export function allFileBytes(dir: string): { file: string; bytes: Buffer }[] {
  const out: { file: string; bytes: Buffer }[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push({ file: p, bytes: fs.readFileSync(p) });
    }
  };
  walk(dir);
  return out;
}

/** The card number and CVV in the forms a leak could take (spaced, compact, UTF-16). */
export function leakNeedles(numbers: string[], cvvs: string[]): Buffer[] {
  const out: Buffer[] = [];
  for (const num of numbers) {
    const compact = num.replace(/\s/g, '');
    for (const s of [compact, num]) {
      out.push(Buffer.from(s, 'utf8'), Buffer.from(s, 'utf16le'));
    }
  }
  for (const c of cvvs) out.push(Buffer.from(`"cvv":"${c}"`), Buffer.from(`cvv":"${c}`));
  return out;
}
