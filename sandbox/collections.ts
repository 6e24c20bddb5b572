// Collections: create, finish (page or control), expire, clear, and change a final status. Every
// change is one transaction that also moves the wallet and queues the callback.
import crypto from 'node:crypto';
import type { SandboxDb } from './store.js';
import type { SandboxClock } from './clock.js';
import { iso } from './clock.js';
import type { CardSummary, Scenario } from './card.js';
import type { CallbackBody, CallbackDispatcher } from './callbacks.js';
import type { Signer } from './signing.js';
import type { ValidRequest } from './initialize.js';
import { ApiError } from './envelope.js';
import { cardCharge, rollingReserve, toWire } from './money.js';
import { moveCollectionWallet } from './wallets.js';
import type {
  CallbackEvent,
  CollectionHistoryEntry,
  CollectionStatus,
  CollectionView,
  CompleteOutcome,
  FinalStatus,
} from './types.js';

export const PAGE_TIMEOUT_MS = 15 * 60_000;
export const CLEARING_DELAY_MS = 60 * 60_000;
export const FLIP_AFTER_MS = 10 * 60_000;
export const TRANSACTION_TYPE = 'Collection';

export interface Collection {
  id: number;
  merchant_reference: string;
  internal_reference: string;
  token: string;
  status: CollectionStatus;
  status_message: string;
  currency: string;
  amount: number;
  charge: number;
  transaction_amount: number;
  total_credit: number;
  reserve: number;
  charge_customer: boolean;
  allow_final_status_change: boolean;
  description: string;
  customer_name: string | null;
  customer_email: string | null;
  provider_code: string;
  redirect_url: string;
  card: CardSummary;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
  /** What a COMPLETED status put in the wallet, so a change of status can take it back. */
  credited: { uncleared: number; reserve: number; cleared: boolean } | null;
  challenge: boolean;
  flipped: boolean;
  history: CollectionHistoryEntry[];
}

const EVENT: Record<FinalStatus, CallbackEvent> = {
  COMPLETED: 'transaction.completed',
  FAILED: 'transaction.failed',
  CANCELLED: 'transaction.cancelled',
};

const OUTCOME: Record<CompleteOutcome, { status: FinalStatus; message: string }> = {
  approve: { status: 'COMPLETED', message: 'Transaction completed successfully' },
  decline: { status: 'FAILED', message: 'Card declined' },
  insufficient_funds: { status: 'FAILED', message: 'Insufficient funds' },
  cancel: { status: 'CANCELLED', message: 'Payment cancelled by the customer' },
};

export function outcomeOf(s: Scenario): CompleteOutcome {
  return s === 'decline' ? 'decline' : s === 'insufficient_funds' ? 'insufficient_funds' : 'approve';
}

export class Collections {
  constructor(
    private readonly db: SandboxDb,
    private readonly clock: SandboxClock,
    private readonly signer: Signer,
    private readonly callbacks: CallbackDispatcher,
  ) {}

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM collections').get() as { n: number }).n;
  }

  byReference(ref: string): Collection | undefined {
    const row = this.db.prepare('SELECT data FROM collections WHERE merchant_reference = ?').get(ref) as
      { data: string } | undefined;
    return row ? (JSON.parse(row.data) as Collection) : undefined;
  }

  byToken(token: string): Collection | undefined {
    const row = this.db.prepare('SELECT data FROM collections WHERE token = ?').get(token) as
      { data: string } | undefined;
    return row ? (JSON.parse(row.data) as Collection) : undefined;
  }

  mustGet(ref: string): Collection {
    const c = this.byReference(ref);
    if (!c) throw new ApiError(404, `no collection with merchant_reference ${ref}`, { field: 'merchant_reference' });
    return c;
  }

  /** Amount (minor) initialized today (UTC, sandbox clock) in a currency that has not failed or been cancelled. */
  usedToday(currency: string): number {
    const now = this.clock.now();
    const dayStart = now - (now % 86_400_000);
    const r = this.db
      .prepare(
        `SELECT COALESCE(SUM(amount), 0) AS s FROM collections
         WHERE currency = ? AND created_at >= ? AND status IN ('PENDING', 'COMPLETED')`,
      )
      .get(currency, dayStart) as { s: number };
    return r.s;
  }

  create(req: ValidRequest): Collection {
    const now = this.clock.now();
    const charge = cardCharge(req.amountMinor);
    const c: Collection = {
      id: 0,
      merchant_reference:
        req.merchantReference === 'auto'
          ? `AUTO-${crypto.randomBytes(8).toString('hex').toUpperCase()}`
          : req.merchantReference,
      internal_reference: `SBX${now.toString(36).toUpperCase()}${crypto.randomBytes(5).toString('hex').toUpperCase()}`,
      token: crypto.randomBytes(18).toString('base64url'),
      status: 'PENDING',
      status_message: 'Awaiting payment on the payment page',
      currency: req.currency,
      amount: req.amountMinor,
      charge,
      transaction_amount: req.chargeCustomer ? req.amountMinor + charge : req.amountMinor,
      total_credit: req.chargeCustomer ? req.amountMinor : req.amountMinor - charge,
      reserve: 0,
      charge_customer: req.chargeCustomer,
      allow_final_status_change: req.allowFinalStatusChange,
      description: req.description,
      customer_name: req.customerName,
      customer_email: req.customerEmail,
      provider_code: req.option.provider_code,
      redirect_url: req.redirectUrl,
      card: req.card,
      created_at: now,
      expires_at: now + PAGE_TIMEOUT_MS,
      completed_at: null,
      credited: null,
      challenge: false,
      flipped: false,
      history: [{ status: 'PENDING', message: 'Initialized', at: iso(now), source: 'initialize' }],
    };
    c.reserve = rollingReserve(c.total_credit);
    this.db.transaction(() => {
      const r = this.db
        .prepare(
          `INSERT INTO collections (merchant_reference, internal_reference, token, status, currency, amount, created_at, expires_at, data)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}')`,
        )
        .run(
          c.merchant_reference,
          c.internal_reference,
          c.token,
          c.status,
          c.currency,
          c.amount,
          c.created_at,
          c.expires_at,
        );
      c.id = Number(r.lastInsertRowid);
      this.save(c, null, null);
    })();
    return c;
  }

  /** Marks that the page asked for the one-time code. */
  startChallenge(c: Collection): void {
    if (c.challenge) return;
    c.challenge = true;
    this.db.transaction(() => this.save(c, null, null))();
  }

  /** PENDING -> a final status. Throws 409 when the collection is already final. */
  finish(
    ref: string,
    outcome: CompleteOutcome | { status: FinalStatus; message: string },
    source: CollectionHistoryEntry['source'],
  ): Collection {
    return this.db.transaction(() => {
      const c = this.mustGet(ref);
      if (c.status !== 'PENDING') {
        throw new ApiError(409, `collection ${ref} is already ${c.status}`, { field: 'merchant_reference' });
      }
      const { status, message } = typeof outcome === 'string' ? OUTCOME[outcome] : outcome;
      const now = this.clock.now();
      c.status = status;
      c.status_message = message;
      c.completed_at = now;
      c.history.push({ status, message, at: iso(now), source });
      let flipAt: number | null = null;
      if (status === 'COMPLETED') {
        this.credit(c);
        if (c.card.scenario === 'flip' && c.allow_final_status_change) flipAt = now + FLIP_AFTER_MS;
      }
      this.save(c, c.credited && !c.credited.cleared ? now + CLEARING_DELAY_MS : null, flipAt);
      this.callbacks.enqueue(this.callbackBody(c));
      return c;
    })();
  }

  /** A final status changes to another final status (allow_final_status_change). */
  flip(ref: string, status: FinalStatus, source: CollectionHistoryEntry['source']): Collection {
    return this.db.transaction(() => {
      const c = this.mustGet(ref);
      if (c.status === 'PENDING') {
        throw new ApiError(409, `collection ${ref} is still PENDING; only a final status can change`, {
          field: 'merchant_reference',
        });
      }
      if (!c.allow_final_status_change) {
        throw new ApiError(409, `collection ${ref} was initialized with allow_final_status_change false`, {
          field: 'merchant_reference',
        });
      }
      if (!['COMPLETED', 'FAILED', 'CANCELLED'].includes(status)) {
        throw new ApiError(422, 'status must be FAILED, COMPLETED or CANCELLED', { field: 'status' });
      }
      if (c.status === status) {
        throw new ApiError(409, `collection ${ref} is already ${status}`, { field: 'status' });
      }
      const now = this.clock.now();
      if (c.status === 'COMPLETED') this.reverse(c);
      const message =
        status === 'FAILED'
          ? 'Final status changed: payment reversed by the issuer'
          : status === 'COMPLETED'
            ? 'Final status changed: payment confirmed'
            : 'Final status changed: payment cancelled';
      c.status = status;
      c.status_message = message;
      c.flipped = true;
      c.history.push({ status, message, at: iso(now), source });
      if (status === 'COMPLETED') this.credit(c);
      this.save(c, c.credited && !c.credited.cleared ? now + CLEARING_DELAY_MS : null, null);
      this.callbacks.enqueue(this.callbackBody(c));
      return c;
    })();
  }

  /** Runs what the sandbox clock makes due: page expiry, clearing, the flip card's change. */
  tick(): void {
    const now = this.clock.now();
    const refs = (sql: string) =>
      (this.db.prepare(sql).all(now) as { merchant_reference: string }[]).map((r) => r.merchant_reference);
    for (const ref of refs(
      `SELECT merchant_reference FROM collections WHERE status = 'PENDING' AND expires_at <= ? ORDER BY id`,
    )) {
      this.finish(ref, { status: 'CANCELLED', message: 'Payment page expired' }, 'expiry');
    }
    for (const ref of refs(
      'SELECT merchant_reference FROM collections WHERE clear_at IS NOT NULL AND clear_at <= ? ORDER BY clear_at',
    )) {
      this.clear(ref);
    }
    for (const ref of refs(
      'SELECT merchant_reference FROM collections WHERE flip_at IS NOT NULL AND flip_at <= ? ORDER BY flip_at',
    )) {
      try {
        this.flip(ref, 'FAILED', 'final_status_change');
      } catch (e) {
        // e.g. a control already changed it: the scheduled change no longer applies
        if (!(e instanceof ApiError)) throw e;
        this.db.prepare('UPDATE collections SET flip_at = NULL WHERE merchant_reference = ?').run(ref);
      }
    }
  }

  view(c: Collection, baseUrl: string): CollectionView {
    const w = (n: number) => toWire(n, c.currency);
    return {
      id: c.id,
      merchant_reference: c.merchant_reference,
      internal_reference: c.internal_reference,
      status: c.status,
      status_message: c.status_message,
      currency: c.currency,
      amount: w(c.amount),
      transaction_amount: w(c.transaction_amount),
      transaction_charge: w(c.charge),
      total_credit: w(c.total_credit),
      reserve: w(c.reserve),
      charge_customer: c.charge_customer,
      allow_final_status_change: c.allow_final_status_change,
      description: c.description,
      customer_name: c.customer_name,
      customer_email: c.customer_email,
      provider_code: c.provider_code,
      card: { brand: c.card.brand, last4: c.card.last4 },
      payment_url: paymentUrl(baseUrl, c),
      redirect_url: c.redirect_url,
      created_at: iso(c.created_at),
      expires_at: iso(c.expires_at),
      completed_at: c.completed_at === null ? null : iso(c.completed_at),
      cleared: c.credited?.cleared ?? false,
      history: c.history,
    };
  }

  callbackBody(c: Collection): CallbackBody {
    const status = c.status as FinalStatus;
    const w = (n: number) => toWire(n, c.currency);
    return {
      event: EVENT[status],
      payload: {
        id: c.id,
        merchant_reference: c.merchant_reference,
        internal_reference: c.internal_reference,
        transaction_type: TRANSACTION_TYPE,
        request_currency: c.currency,
        request_amount: w(c.amount),
        transaction_currency: c.currency,
        transaction_amount: w(c.transaction_amount),
        transaction_charge: w(c.charge),
        total_credit: w(c.total_credit),
        charge_customer: c.charge_customer,
        provider_code: c.provider_code,
        customer_name: c.customer_name,
        transaction_status: status,
        status_message: c.status_message,
      },
    };
  }

  /** redirect_url with the signed result parameters. */
  redirectUrl(c: Collection): string {
    if (c.status === 'PENDING') throw new ApiError(409, `collection ${c.merchant_reference} is still PENDING`);
    const fields = {
      event: EVENT[c.status],
      merchant_reference: c.merchant_reference,
      internal_reference: c.internal_reference,
      transaction_type: TRANSACTION_TYPE,
      transaction_status: c.status,
    };
    const sig = this.signer.sign(fields);
    const u = new URL(c.redirect_url);
    for (const [k, v] of Object.entries(fields)) u.searchParams.set(k, v);
    u.searchParams.set('hmac_signature', sig.hmac);
    u.searchParams.set('rsa_signature', sig.rsa);
    return u.toString();
  }

  private credit(c: Collection): void {
    const reserve = rollingReserve(c.total_credit);
    const uncleared = c.total_credit - reserve;
    moveCollectionWallet(this.db, c.currency, { uncleared, reserve });
    c.credited = { uncleared, reserve, cleared: false };
  }

  private reverse(c: Collection): void {
    if (!c.credited) return;
    const { uncleared, reserve, cleared } = c.credited;
    moveCollectionWallet(
      this.db,
      c.currency,
      cleared ? { available: -uncleared, reserve: -reserve } : { uncleared: -uncleared, reserve: -reserve },
    );
    c.credited = null;
  }

  private clear(ref: string): void {
    this.db.transaction(() => {
      const c = this.mustGet(ref);
      if (c.credited && !c.credited.cleared) {
        moveCollectionWallet(this.db, c.currency, {
          available: c.credited.uncleared,
          uncleared: -c.credited.uncleared,
        });
        c.credited.cleared = true;
      }
      const row = this.db.prepare('SELECT flip_at FROM collections WHERE id = ?').get(c.id) as {
        flip_at: number | null;
      };
      this.save(c, null, row.flip_at);
    })();
  }

  private save(c: Collection, clearAt: number | null, flipAt: number | null): void {
    this.db
      .prepare('UPDATE collections SET status = ?, clear_at = ?, flip_at = ?, data = ? WHERE id = ?')
      .run(c.status, clearAt, flipAt, JSON.stringify(c), c.id);
  }
}

export function paymentUrl(baseUrl: string, c: { token: string }): string {
  return `${baseUrl}/pay/${c.token}`;
}
