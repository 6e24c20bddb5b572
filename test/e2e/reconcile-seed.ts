// Real collections for the reconciliation and reports e2e tests, made through the back end against the
// running app's embedded sandbox: the test process opens the app's SQLite file (WAL, busy timeout) and
// charges with the real charge service and service client (no payment window: each stays PENDING),
// then the sandbox's controls finish or flip them and its signed callbacks reach the app's receiver.
// Callbacks the sandbox would never send (unknown reference, wrong amount) are signed here with the
// merchant signing key and POSTed to the receiver like the service would.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { dataPaths } from '../../main/settings/paths.js';
import { createServiceClient } from '../../main/service/client.js';
import { createChargeService, type ChargeService } from '../../main/collections/charge/service.js';
import { getCollection } from '../../main/collections/query.js';
import { systemClock } from '../../main/clock.js';
import { DEFAULT_REDIRECT_URL } from '../../main/settings/settings.js';
import { PUBLIC_KEY_FILE } from '../../sandbox/keys.js';
import type { RunningApp } from './support/app.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger(); // composed as composeCore composes its own

export interface Seeder {
  db: Db;
  charge(o: {
    amount: string;
    currency: string;
    description: string;
    customerName?: string;
    card?: string;
  }): Promise<string>;
  statusOf(reference: string): string | null;
  /** The redirect the payment window would capture (recorded and verified by the charge service). */
  redirect(url: string): Promise<void>;
  /** A callback signed with the merchant key, POSTed to the app's receiver; answers the HTTP status. */
  postCallback(o: {
    reference: string;
    internalReference?: string;
    status: string;
    amount: number;
    currency: string;
  }): Promise<number>;
  close(): void;
}

function sandboxKeys(dataDir: string): {
  publicKey: string;
  secretKey: string;
  signingKey: string;
  servicePem: string;
} {
  const dir = dataPaths(dataDir).sandbox;
  const sdb = new Database(path.join(dir, 'sandbox.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const meta = (k: string) =>
      (sdb.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(k) as string | undefined) ?? '';
    const servicePem = fs.readFileSync(path.join(dir, PUBLIC_KEY_FILE), 'utf8');
    return {
      publicKey: meta('public_key'),
      secretKey: meta('secret_key'),
      signingKey: meta('signing_key'),
      servicePem,
    };
  } finally {
    sdb.close();
  }
}

export function seeder(app: RunningApp): Seeder {
  if (!app.ready.sandbox_url || !app.ready.callback_url)
    throw new Error('the app is not on the embedded profile (no sandbox or receiver)');
  const keys = sandboxKeys(app.dataDir);
  const db = openDatabase(dataPaths(app.dataDir).db);
  const pem = keys.servicePem;
  const client = createServiceClient({
    baseUrl: app.ready.sandbox_url,
    keys: () => ({ publicKey: keys.publicKey, secretKey: keys.secretKey }),
  });
  const svc: ChargeService = createChargeService({
    db,
    ledger,
    getClient: () => client,
    getServicePublicKeyPem: () => pem,
    getSigningKey: () => keys.signingKey,
    clock: systemClock,
    redirectUrl: DEFAULT_REDIRECT_URL,
    operator: 'e2e seeder',
  });
  return {
    db,
    async charge(o) {
      const r = await svc.charge({
        amount: o.amount,
        currency: o.currency,
        description: o.description,
        ...(o.customerName ? { customerName: o.customerName } : {}),
        chargeCustomer: false,
        allowFinalStatusChange: true,
        card: {
          number: o.card ?? '4242424242424242',
          expMonth: '12',
          expYear: '2030',
          cvv: '123',
          firstName: 'Ada',
          lastName: 'Okello',
        },
      });
      if (r.outcome.kind !== 'pending' || !r.collection)
        throw new Error(`charge did not go pending: ${JSON.stringify(r.outcome)}`);
      return r.collection.merchantReference;
    },
    async redirect(url) {
      await svc.handleRedirect(url);
    },
    statusOf(reference) {
      return getCollection(db, reference)?.collection.status ?? null;
    },
    async postCallback(o) {
      const internal = o.internalReference ?? `INT-${crypto.randomBytes(4).toString('hex')}`;
      const event =
        o.status === 'COMPLETED'
          ? 'transaction.completed'
          : o.status === 'FAILED'
            ? 'transaction.failed'
            : 'transaction.cancelled';
      const signed = `${event}:${o.reference}:${internal}:Collection:${o.status}`;
      const s = crypto.createHmac('sha256', keys.signingKey).update(signed, 'utf8').digest('hex');
      const body = {
        event,
        payload: {
          id: Math.floor(Math.random() * 1e9),
          merchant_reference: o.reference,
          internal_reference: internal,
          transaction_type: 'Collection',
          request_currency: o.currency,
          request_amount: o.amount,
          transaction_currency: o.currency,
          transaction_amount: o.amount,
          transaction_charge: 0,
          total_credit: o.amount,
          charge_customer: false,
          provider_code: `CARD_${o.currency}`,
          customer_name: 'Ada Okello',
          transaction_status: o.status,
          status_message: 'test',
        },
      };
      const r = await fetch(app.ready.callback_url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'hmac-signature': `t=${Math.floor(Date.now() / 1000)},s=${s}` },
        body: JSON.stringify(body),
      });
      await r.text();
      return r.status;
    },
    close() {
      svc.dispose();
      db.close();
    },
  };
}

/** The sandbox's final status change, now (POST /__sandbox/collections/:ref/flip). */
export async function flip(
  app: RunningApp,
  reference: string,
  status: 'FAILED' | 'COMPLETED' | 'CANCELLED',
): Promise<void> {
  const r = await fetch(`${app.ready.sandbox_url}/__sandbox/collections/${encodeURIComponent(reference)}/flip`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status }),
  });
  if (!r.ok) throw new Error(`flip ${reference} -> ${r.status}: ${await r.text()}`);
}

/** Many synthetic PENDING collections straight into the projection (a big history, for cancelling an export). */
export function bulkCollections(db: Db, n: number): void {
  db.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
     INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, operator, redirect_url, status, status_changed_at)
     SELECT 'BULK-' || printf('%08d', i), ? - i * 1000, 1000 + i, 'UGX', 'Bulk order number ' || i, 'bulk', 'https://merchant-desk.invalid/return', 'PENDING', ? - i * 1000 FROM seq`,
  ).run(n, Date.now(), Date.now());
}

/** The sandbox's callback delivery mode (hold queues them until released). */
export async function callbackMode(app: RunningApp, mode: 'normal' | 'hold'): Promise<void> {
  const r = await fetch(`${app.ready.sandbox_url}/__sandbox/callbacks/mode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode }),
  });
  if (!r.ok) throw new Error(`callbacks mode -> ${r.status}: ${await r.text()}`);
}
