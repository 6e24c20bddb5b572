// Builds collection histories: collection rows inserted directly, events through the ledger (the path
// the payments ingestion takes), so reconciliation and reports can be tested on constructed histories.
import path from 'node:path';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { formatMinor } from '../../main/money/index.js';
import { tempDir } from '../support/tmp.js';
import { testLedger } from '../support/ledger.js';
import type { EventKind, EventSource, SignatureState } from '../../main/collections/model.js';

/** The ledger every history appends through, and its reconciler (each history sets its clock there). */
export const { ledger, reconciler } = testLedger();

export function testDb(): { db: Db; dir: string; file: string } {
  const dir = tempDir('md-recon-');
  const file = path.join(dir, 'merchant-desk.db');
  return { db: openDatabase(file), dir, file };
}

export interface CollectionSpec {
  ref?: string | undefined;
  amountMinor?: number | undefined;
  currency?: string | undefined;
  createdAt?: number | undefined;
  description?: string | undefined;
  customerName?: string | null | undefined;
  customerEmail?: string | null | undefined;
  cardLast4?: string | undefined;
}

export interface CallbackSpec {
  at?: number | undefined;
  signature?: 'verified' | 'invalid' | 'missing' | undefined;
  /** Defaults to the intent's amount and currency. */
  amountMinor?: number | undefined;
  currency?: string | undefined;
  /** total_credit in minor units; default amount - 3.5% charge. */
  totalCreditMinor?: number | undefined;
  source?: 'callback' | 'import' | undefined;
  /** Put amount/currency only in the payload, not the event columns (as a raw ingestion might). */
  payloadOnly?: boolean | undefined;
}

let seq = 0;

export class History {
  private internal = new Map<number, string>();
  constructor(
    readonly db: Db,
    public t = Date.UTC(2026, 10, 1, 9, 0, 0),
  ) {
    // Events are reconciled as they are appended, on this history's clock (a second after its last tick).
    reconciler.setOptions(db, () => ({ now: this.t + 1000 }));
  }

  private info(id: number): { ref: string; amount: number; currency: string; customer: string | null } {
    const r = this.db
      .prepare('SELECT merchant_reference, amount_minor, currency, customer_name FROM collections WHERE id = ?')
      .get(id) as {
      merchant_reference: string;
      amount_minor: number;
      currency: string;
      customer_name: string | null;
    };
    return { ref: r.merchant_reference, amount: r.amount_minor, currency: r.currency, customer: r.customer_name };
  }

  tick(ms = 1000): number {
    this.t += ms;
    return this.t;
  }

  collection(spec: CollectionSpec = {}): number {
    const at = spec.createdAt ?? this.tick();
    const ref = spec.ref ?? `MD-TEST-${String(++seq).padStart(6, '0')}`;
    const r = this.db
      .prepare(
        `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, customer_name, customer_email,
           operator, redirect_url, card_brand, card_last4, status, status_changed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'Test Operator', 'https://merchant-desk.invalid/return', 'visa', ?, 'INTENT', ?)`,
      )
      .run(
        ref,
        at,
        spec.amountMinor ?? 150_000,
        spec.currency ?? 'UGX',
        spec.description ?? 'Phone order 1234',
        spec.customerName === undefined ? 'Jane Customer' : spec.customerName,
        spec.customerEmail === undefined ? 'jane@example.com' : spec.customerEmail,
        spec.cardLast4 ?? '4242',
        at,
      );
    const id = Number(r.lastInsertRowid);
    this.event(id, { source: 'intent', kind: 'intent_saved', status: 'INTENT', at, signature: 'not_applicable' });
    return id;
  }

  event(
    id: number | null,
    e: {
      source: string;
      kind: string;
      status?: string | null | undefined;
      at?: number | undefined;
      signature?: string | undefined;
      amountMinor?: number | null | undefined;
      currency?: string | null | undefined;
      payload?: unknown | undefined;
      note?: string | null | undefined;
      actor?: string | null | undefined;
      ref?: string | undefined;
      internal?: string | null | undefined;
    },
  ): number {
    const info = id === null ? null : this.info(id);
    const at = e.at ?? this.tick();
    // The real path: the ledger stores the event, moves the projection and reconciles the collection.
    const { eventId } = ledger.append(this.db, {
      collectionId: id,
      merchantReference: e.ref ?? info!.ref,
      internalReference: e.internal === undefined ? (id === null ? null : (this.internal.get(id) ?? null)) : e.internal,
      source: e.source as EventSource,
      kind: e.kind as EventKind,
      status: e.status ?? null,
      receivedAt: at,
      signature: (e.signature ?? 'not_applicable') as SignatureState,
      amountMinor: e.amountMinor ?? null,
      currency: e.currency ?? null,
      payload: e.payload === undefined ? null : typeof e.payload === 'string' ? e.payload : JSON.stringify(e.payload),
      note: e.note ?? null,
      actor: e.actor ?? null,
    });
    return eventId;
  }

  accepted(id: number, at?: number): number {
    const internal = `INT-${id}-${++seq}`;
    this.internal.set(id, internal);
    this.db
      .prepare('UPDATE collections SET internal_reference = ?, payment_url = ? WHERE id = ?')
      .run(internal, `http://127.0.0.1:9/pay/${internal}`, id);
    return this.event(id, {
      source: 'initiate',
      kind: 'initialize_accepted',
      status: 'PENDING',
      at,
      internal,
      payload: { payment_url: `http://127.0.0.1:9/pay/${internal}` },
    });
  }

  rejected(id: number, at?: number): number {
    return this.event(id, {
      source: 'initiate',
      kind: 'initialize_rejected',
      status: 'REJECTED',
      at,
      payload: { message: 'description must be 10 to 30 characters', field: 'description' },
    });
  }

  unknown(id: number, at?: number): number {
    return this.event(id, { source: 'initiate', kind: 'initialize_unknown', status: 'UNKNOWN', at });
  }

  redirect(
    id: number,
    status: string,
    opts: { at?: number; signature?: 'verified' | 'invalid' | 'missing' } = {},
  ): number {
    return this.event(id, {
      source: 'redirect',
      kind: 'outcome',
      status,
      at: opts.at,
      signature: opts.signature ?? 'verified',
    });
  }

  callbackBody(
    id: number,
    status: string,
    spec: CallbackSpec = {},
  ): { event: string; payload: Record<string, unknown> } {
    const info = this.info(id);
    const currency = spec.currency ?? info.currency;
    const amount = spec.amountMinor ?? info.amount;
    const charge = Math.round((amount * 35) / 1000);
    const credit = spec.totalCreditMinor ?? amount - charge;
    return {
      event: `transaction.${status === 'COMPLETED' ? 'completed' : status === 'FAILED' ? 'failed' : 'cancelled'}`,
      payload: {
        id: 1000 + id,
        merchant_reference: info.ref,
        internal_reference: this.internal.get(id) ?? null,
        transaction_type: 'Collection',
        request_currency: currency,
        request_amount: Number(formatMinor(amount, currency)),
        transaction_currency: currency,
        transaction_amount: Number(formatMinor(amount, currency)),
        transaction_charge: Number(formatMinor(charge, currency)),
        total_credit: Number(formatMinor(credit, currency)),
        charge_customer: false,
        provider_code: `CARD_${currency}`,
        customer_name: info.customer,
        transaction_status: status,
        status_message: status === 'COMPLETED' ? 'Approved' : status === 'FAILED' ? 'Card declined' : 'Cancelled',
      },
    };
  }

  callback(id: number, status: string, spec: CallbackSpec = {}): number {
    const body = this.callbackBody(id, status, spec);
    const currency = spec.currency ?? this.info(id).currency;
    return this.event(id, {
      source: spec.source ?? 'callback',
      kind: 'outcome',
      status,
      at: spec.at,
      signature: spec.signature ?? 'verified',
      amountMinor: spec.payloadOnly ? null : (spec.amountMinor ?? this.info(id).amount),
      currency: spec.payloadOnly ? null : currency,
      payload: body,
    });
  }

  badSignature(id: number, at?: number): number {
    return this.event(id, { source: 'security', kind: 'bad_signature', status: 'COMPLETED', at, signature: 'invalid' });
  }

  orphanCallback(ref: string, status = 'COMPLETED', at?: number): number {
    return this.event(null, {
      ref,
      internal: `INT-ORPHAN-${ref}`,
      source: 'callback',
      kind: 'outcome',
      status,
      at,
      signature: 'verified',
      payload: { event: 'transaction.completed', payload: { merchant_reference: ref, transaction_status: status } },
    });
  }

  /** A successful balance poll with a collection-wallet snapshot when `actual` is given. */
  poll(at: number, wallets: { currency: string; actualMinor: number; walletType?: string }[] = []): number {
    const run = this.db
      .prepare(
        `INSERT INTO poll_runs (kind, started_at, finished_at, outcome, changed_rows) VALUES ('balances', ?, ?, 'ok', ?)`,
      )
      .run(at - 100, at, wallets.length);
    const pollId = Number(run.lastInsertRowid);
    for (const w of wallets) {
      const reserve = Math.floor(w.actualMinor / 20);
      this.db
        .prepare(
          `INSERT INTO balance_snapshots (poll_run_id, observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
           VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
        )
        .run(
          pollId,
          at,
          w.currency,
          w.walletType ?? 'MERCHANT_COLLECTION',
          w.actualMinor - reserve,
          w.actualMinor,
          reserve,
        );
    }
    return pollId;
  }
}
