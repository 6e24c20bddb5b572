// Charging a card (issue 4): validate again in main, save the intent BEFORE sending, encrypt, initialize,
// record what the service answered, open the payment window, capture the redirect.
//
// Card data lives only in the request object and the card object built from it; both have their
// fields overwritten as soon as the cipher is built (the cipher's plaintext Buffer is zeroed by
// buildCardCipher). Only brand and last four digits are stored.
import crypto from 'node:crypto';
import type { Db } from '../store/db.js';
import { writeTransaction } from '../store/transaction.js';
import type { Clock } from '../clock.js';
import type { CardData, PaymentOption, ServiceClient } from '../service/types.js';
import { buildCardCipher } from '../service/card-cipher.js';
import {
  AuthenticationError,
  CardDataError,
  ServiceKeyError,
  DuplicateReferenceError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
  isServiceError,
} from '../service/errors.js';
import { currencyExponent, displayMinor, isKnownCurrency } from '../money/index.js';
import { appendEvent } from './events.js';
import { createEventWriter } from './event-writer.js';
import { isFinal } from './model.js';
import type { PaymentWindowOpener, PaymentWindowResult } from './payment-window.js';
import { isRedirectUrl, redirectParams } from './redirect-url.js';
import { collectedToday, getCollection, type CollectionRow } from './query.js';
import { PaymentError, fieldErrors } from './errors.js';
import {
  cardFormSchema,
  detectBrand,
  digitsOnly,
  last4,
  parseAmount,
  validateCardForm,
  type AmountLimits,
  type CardFields,
  type CardForm,
} from './card-input.shared.js';
import { checkSignatures } from '../callbacks/verify.js';

type MaybePromise<T> = T | Promise<T>;

export interface ChargeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface ChargeServiceDeps {
  db: Db;
  getClient: () => MaybePromise<ServiceClient | null>;
  getServicePublicKeyPem: () => MaybePromise<string | null>;
  /** The merchant signing key (HMAC of redirects); RSA alone is enough when absent. */
  getSigningKey?: () => MaybePromise<string | null>;
  /** The active card option for a currency; default: the cached payment_options table, else the service. */
  getCardOption?: (currency: string) => MaybePromise<PaymentOption | null>;
  clock: Clock;
  paymentWindow?: PaymentWindowOpener | (() => PaymentWindowOpener | null | undefined);
  redirectUrl: string | (() => string);
  operator: string | (() => string);
  logger?: ChargeLogger;
  /** Called whenever a collection changes during a charge (PENDING, window closed, redirect). */
  onUpdate?: (collection: CollectionRow) => void;
  /** Repeat-charge window; default 5 minutes. */
  repeatWindowMs?: number;
}

export type ChargeOutcome =
  | { kind: 'needs_confirmation'; token: string; message: string }
  | { kind: 'pending'; message: string; paymentUrl: string }
  | { kind: 'window_closed'; message: string }
  | { kind: 'completed' | 'failed' | 'cancelled'; message: string; verified: boolean }
  | { kind: 'unverified'; message: string; status: string | null }
  | { kind: 'rejected'; message: string; field?: string }
  | { kind: 'unknown'; message: string };

export interface ChargeResult {
  collection: CollectionRow | null;
  outcome: ChargeOutcome;
}

export interface RedirectResult {
  collection: CollectionRow | null;
  status: string | null;
  signature: 'verified' | 'invalid' | 'missing';
  outcome: ChargeOutcome;
}

export interface ChargeService {
  /** Validates, saves the intent, sends. The card fields of `form` are overwritten before this returns. */
  charge(form: CardForm, opts?: { signal?: AbortSignal }): Promise<ChargeResult>;
  /** Goes ahead with a charge that needed confirmation (same card and amount within minutes). */
  confirmRepeat(token: string, opts?: { signal?: AbortSignal }): Promise<ChargeResult>;
  /** Forgets a charge that needed confirmation (its card data is overwritten). */
  cancelRepeat(token: string): void;
  /** Re-sends an UNKNOWN collection with the SAME merchant_reference; the card must be typed again. */
  resend(reference: string, card: CardFields, opts?: { signal?: AbortSignal }): Promise<ChargeResult>;
  /** A redirect URL captured by the payment window. */
  handleRedirect(url: string): Promise<RedirectResult>;
  /** Limits for the form: per active card option, with today's collected total. */
  options(): Promise<CardOptionView[]>;
  /** Stops timers and overwrites held card data. */
  dispose(): void;
}

export interface CardOptionView {
  providerCode: string;
  providerName: string;
  currency: string;
  exponent: number;
  minMinor: number;
  maxMinor: number;
  maxDailyMinor: number;
  collectedTodayMinor: number;
  remainingTodayMinor: number;
}

const REPEAT_WINDOW_MS = 5 * 60_000;
const CONFIRM_TTL_MS = 2 * 60_000;

/** "MD-20261121-7K3Q9XPA": date for people, 40 random bits so two desks never collide. */
export function newMerchantReference(now: number): string {
  const d = new Date(now).toISOString().slice(0, 10).replace(/-/g, '');
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = crypto.randomBytes(8);
  let r = '';
  for (const b of bytes) r += alphabet[b % alphabet.length];
  return `MD-${d}-${r}`;
}

/** Overwrites every string field of a card object (strings cannot be zeroed; drop the references). */
export function wipeCard(card: Record<string, unknown> | null | undefined): void {
  if (!card) return;
  for (const k of Object.keys(card)) if (typeof card[k] === 'string') card[k] = '';
}

function toCardData(c: CardFields): CardData {
  const year = c.expYear.trim();
  const data: CardData = {
    first_name: c.firstName.trim(),
    last_name: c.lastName.trim(),
    card_no: digitsOnly(c.number),
    exp_month: c.expMonth.trim().padStart(2, '0'),
    exp_year: year.length === 2 ? '20' + year : year,
    cvv: c.cvv.trim(),
  };
  const opt: [keyof CardFields, keyof CardData][] = [
    ['billingAddress', 'billing_address'],
    ['billingCity', 'billing_city'],
    ['billingZip', 'billing_zip'],
    ['billingState', 'billing_state'],
  ];
  for (const [from, to] of opt) {
    const v = (c[from] as string | undefined)?.trim();
    if (v) (data as unknown as Record<string, string>)[to] = v;
  }
  const country = c.billingCountry?.trim().toUpperCase();
  if (country) data.billing_country = country;
  if (c.pin?.trim()) data.pin = c.pin.trim();
  return data;
}

const CARD_FIELD_MAP: Record<string, string> = {
  first_name: 'card.firstName',
  last_name: 'card.lastName',
  card_no: 'card.number',
  exp_month: 'card.expMonth',
  exp_year: 'card.expYear',
  cvv: 'card.cvv',
  billing_address: 'card.billingAddress',
  billing_city: 'card.billingCity',
  billing_zip: 'card.billingZip',
  billing_state: 'card.billingState',
  billing_country: 'card.billingCountry',
  pin: 'card.pin',
  description: 'description',
  amount: 'amount',
  currency: 'currency',
  customer_name: 'customerName',
  customer_email: 'customerEmail',
};

/** A service or cipher field name ("card_cipher.cvv", "description") as the form names it. */
export function formField(serviceField: string | undefined): string | undefined {
  if (!serviceField) return undefined;
  const f = serviceField.replace(/^card_cipher\./, '');
  return CARD_FIELD_MAP[f] ?? serviceField;
}

function readOption(db: Db, currency: string): PaymentOption | null {
  try {
    const r = db
      .prepare(
        `SELECT * FROM payment_options WHERE currency = ? AND upper(transaction_method) = 'CARD' AND is_active = 1
         AND upper(transaction_type) = 'COLLECTION' ORDER BY provider_code LIMIT 1`,
      )
      .get(currency) as Record<string, unknown> | undefined;
    if (!r) return null;
    return {
      providerName: String(r.provider_name),
      providerCode: String(r.provider_code),
      transactionMethod: String(r.transaction_method),
      transactionMethodName: String(r.transaction_method_name),
      transactionType: String(r.transaction_type),
      currency: String(r.currency),
      minMinor: Number(r.min_minor),
      maxMinor: Number(r.max_minor),
      maxDailyMinor: Number(r.max_daily_minor),
      isActive: !!r.is_active,
      optionPrefixes: [],
    };
  } catch {
    return null;
  }
}

/** A charge checked and encrypted, ready to save and send: no card data, only its cipher and receipt details. */
interface PreparedCharge {
  amountMinor: number;
  currency: string;
  providerCode: string;
  description: string;
  customerName: string | null;
  customerEmail: string | null;
  chargeCustomer: boolean;
  allowFinalStatusChange: boolean;
  brand: string;
  last4: string;
  cipher: string;
  guardKey: string;
}

/** A repeat charge waiting for the agent's confirmation: the encrypted card only, never the card. */
interface Held {
  charge: PreparedCharge;
  expires: number;
  timer: NodeJS.Timeout;
}

export function createChargeService(deps: ChargeServiceDeps): ChargeService {
  const { db, clock } = deps;
  const repeatWindow = deps.repeatWindowMs ?? REPEAT_WINDOW_MS;
  // Repeat guard: a keyed hash of the card number (key random per process, in memory only).
  const guardKey = crypto.randomBytes(32);
  const recent = new Map<string, number>();
  const held = new Map<string, Held>();
  const val = <T>(v: T | (() => T)): T => (typeof v === 'function' ? (v as () => T)() : v);
  // What the service answered is recorded through this: kept in memory and retried when the database
  // cannot take it at once, so an accepted payment is never forgotten and its window still opens.
  const events = createEventWriter(db, {
    ...(deps.logger ? { logger: deps.logger } : {}),
    onStored: (id) => {
      if (id !== null) emit(id);
    },
  });

  async function cardOptions(): Promise<PaymentOption[]> {
    let opts: PaymentOption[];
    try {
      opts = (
        db
          .prepare(
            `SELECT currency FROM payment_options WHERE upper(transaction_method) = 'CARD' AND is_active = 1 AND upper(transaction_type) = 'COLLECTION'`,
          )
          .all() as { currency: string }[]
      )
        .map((r) => readOption(db, r.currency))
        .filter((x): x is PaymentOption => !!x);
    } catch {
      opts = [];
    }
    if (opts.length) return opts;
    const client = await deps.getClient();
    if (!client) return [];
    const all = await client.getPaymentOptions({ transactionType: 'COLLECTION' });
    const seen = new Set<string>();
    return all.filter((o) => {
      const ok = o.isActive && o.transactionMethod.toUpperCase() === 'CARD' && !seen.has(o.currency);
      if (ok) seen.add(o.currency);
      return ok;
    });
  }

  async function option(currency: string): Promise<PaymentOption | null> {
    if (deps.getCardOption) return deps.getCardOption(currency);
    return readOption(db, currency) ?? (await cardOptions()).find((o) => o.currency === currency) ?? null;
  }

  function limitsFor(o: PaymentOption | null, currency: string): AmountLimits | null {
    if (!o || !isKnownCurrency(currency)) return null;
    return {
      minMinor: o.minMinor,
      maxMinor: o.maxMinor,
      maxDailyMinor: o.maxDailyMinor,
      collectedTodayMinor: collectedToday(db, currency, clock.now()),
      exponent: currencyExponent(currency),
    };
  }

  function guardKeyFor(cardNumber: string, amountMinor: number, currency: string): string {
    return crypto
      .createHmac('sha256', guardKey)
      .update(digitsOnly(cardNumber))
      .update(`|${amountMinor}|${currency}`)
      .digest('hex');
  }

  function prune(now: number) {
    for (const [k, t] of recent) if (now - t > repeatWindow) recent.delete(k);
  }

  function emit(id: number): CollectionRow | null {
    const c = getCollection(db, id)?.collection ?? null;
    if (c) deps.onUpdate?.(c);
    return c;
  }

  async function keys() {
    const client = await deps.getClient();
    if (!client)
      throw new PaymentError(
        'not_configured',
        'The service connection is not set up: enter the base URL and keys in Settings.',
      );
    const pem = await deps.getServicePublicKeyPem();
    if (!pem)
      throw new PaymentError('not_configured', 'The service public key is missing: import its PEM file in Settings.');
    return { client, pem };
  }

  function cipherFor(card: CardFields, pem: string): string {
    const data = toCardData(card);
    try {
      return buildCardCipher(data, pem);
    } catch (e) {
      if (e instanceof CardDataError) {
        const f = formField(e.field) ?? 'card';
        throw new PaymentError('validation', e.message, f, { [f]: e.message });
      }
      if (e instanceof ServiceKeyError)
        throw new PaymentError('not_configured', `${e.message} (Settings, service public key)`);
      throw e;
    } finally {
      wipeCard(data as unknown as Record<string, unknown>);
    }
  }

  /** Sends initialize for a saved intent and records the answer. */
  async function send(
    collectionId: number,
    reference: string,
    client: ServiceClient,
    cipher: string,
    isResend: boolean,
  ): Promise<ChargeOutcome> {
    const row = db.prepare(`SELECT * FROM collections WHERE id = ?`).get(collectionId) as Record<string, unknown>;
    const base = {
      collectionId,
      merchantReference: reference,
      source: 'initiate' as const,
      signature: 'not_applicable' as const,
    };
    // Only the request is inside the try: a failure to store the answer is not a failure of the request.
    let r: Awaited<ReturnType<ServiceClient['initialize']>>;
    try {
      r = await client.initialize({
        merchantReference: reference,
        currency: String(row.currency),
        amountMinor: Number(row.amount_minor),
        description: String(row.description),
        cardCipher: cipher,
        redirectUrl: String(row.redirect_url),
        ...(row.customer_name ? { customerName: String(row.customer_name) } : {}),
        ...(row.customer_email ? { customerEmail: String(row.customer_email) } : {}),
        chargeCustomer: !!row.charge_customer,
        allowFinalStatusChange: !!row.allow_final_status_change,
      });
    } catch (e) {
      const now = clock.now();
      if (e instanceof DuplicateReferenceError) {
        const known = e.paymentUrl ?? (row.payment_url as string | null) ?? null;
        events.append({
          ...base,
          kind: 'initialize_exists',
          status: known ? 'PENDING' : null,
          receivedAt: now,
          internalReference: e.internalReference ?? null,
          paymentUrl: known,
          payload: JSON.stringify({
            http_status: e.status ?? null,
            message: e.serviceMessage ?? e.message,
            internal_reference: e.internalReference ?? null,
            payment_url: e.paymentUrl ?? null,
          }),
          note: 'the service already has this merchant_reference: the collection exists',
        });
        return known
          ? {
              kind: 'pending',
              message: 'The service already has this payment: open its page to finish it.',
              paymentUrl: known,
            }
          : {
              kind: 'unknown',
              message: 'The service already has this payment but did not say where its page is; wait for its callback.',
            };
      }
      const rejected =
        e instanceof ValidationError ||
        e instanceof AuthenticationError ||
        e instanceof ForbiddenError ||
        e instanceof NotFoundError ||
        e instanceof RateLimitedError;
      if (rejected) {
        const field = e instanceof ValidationError ? formField(e.field) : undefined;
        const message = e.serviceMessage ?? e.message;
        events.append({
          ...base,
          kind: 'initialize_rejected',
          // On a re-send, a refusal does not prove the first send created nothing: stay UNKNOWN.
          status: isResend ? null : 'REJECTED',
          receivedAt: now,
          payload: JSON.stringify({
            http_status: e.status ?? null,
            kind: e.kind,
            message,
            field: e instanceof ValidationError ? (e.field ?? null) : null,
          }),
          statusMessage: message,
          note: isResend ? 'refused on re-send; the first send may still have created it' : null,
        });
        return field ? { kind: 'rejected', message, field } : { kind: 'rejected', message };
      }
      const message = isServiceError(e) ? e.message : 'the request failed in an unexpected way';
      events.append({
        ...base,
        kind: 'initialize_unknown',
        status: 'UNKNOWN',
        receivedAt: now,
        payload: JSON.stringify({
          kind: isServiceError(e) ? e.kind : 'internal',
          http_status: isServiceError(e) ? (e.status ?? null) : null,
          message,
        }),
        statusMessage: message,
      });
      deps.logger?.warn({ reference, kind: isServiceError(e) ? e.kind : 'internal' }, 'initialize outcome unknown');
      return {
        kind: 'unknown',
        message: `We cannot tell whether the service created this payment (${message}). Send it again with the same reference; do not start a new payment.`,
      };
    }
    events.append({
      ...base,
      kind: 'initialize_accepted',
      status: 'PENDING',
      receivedAt: clock.now(),
      internalReference: r.internalReference ?? null,
      paymentUrl: r.paymentUrl,
      payload: JSON.stringify({
        http_status: r.httpStatus,
        internal_reference: r.internalReference ?? null,
        payment_url: r.paymentUrl,
        message: r.message ?? null,
      }),
    });
    return { kind: 'pending', message: 'Accepted: waiting for the payment page.', paymentUrl: r.paymentUrl };
  }

  async function afterPending(
    collectionId: number,
    outcome: ChargeOutcome,
    signal?: AbortSignal,
  ): Promise<ChargeOutcome> {
    emit(collectionId);
    if (outcome.kind !== 'pending') return outcome;
    const opener =
      deps.paymentWindow === undefined
        ? undefined
        : typeof deps.paymentWindow === 'function'
          ? deps.paymentWindow()
          : deps.paymentWindow;
    if (!opener) return outcome;
    const row = db
      .prepare(`SELECT amount_minor, currency, merchant_reference FROM collections WHERE id = ?`)
      .get(collectionId) as {
      amount_minor: number;
      currency: string;
      merchant_reference: string;
    };
    let res: PaymentWindowResult;
    try {
      res = await opener.open({
        paymentUrl: outcome.paymentUrl,
        redirectUrl: val(deps.redirectUrl),
        title: `Pay ${displayMinor(row.amount_minor, row.currency)} (${row.merchant_reference})`,
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      res = { kind: 'error', message: e instanceof Error ? e.message : String(e) };
    }
    if (res.kind === 'redirect') {
      if (isRedirectUrl(res.url, val(deps.redirectUrl))) return (await handleRedirect(res.url)).outcome;
    }
    events.append({
      collectionId,
      merchantReference: row.merchant_reference,
      source: 'redirect',
      kind: 'window_closed',
      receivedAt: clock.now(),
      signature: 'not_applicable',
      note:
        res.kind === 'error'
          ? `payment window failed: ${res.message}`
          : res.kind === 'redirect'
            ? 'navigated away from the payment page'
            : 'closed by the agent before the payment finished',
    });
    emit(collectionId);
    return {
      kind: 'window_closed',
      message:
        'The payment window was closed before the payment finished; the payment stays pending until its callback arrives.',
    };
  }

  async function chargeValidated(form: CardForm, signal?: AbortSignal): Promise<ChargeResult> {
    let copy: Record<string, unknown> | undefined; // zod's parsed copy of the card: wiped too
    try {
      const parsed = cardFormSchema.safeParse(form);
      if (parsed.success) copy = parsed.data.card as unknown as Record<string, unknown>;
      const currency = parsed.success ? parsed.data.currency : String(form.currency ?? '').toUpperCase();
      const opt = await option(currency);
      const errs = validateCardForm(form, { now: clock.now(), limits: limitsFor(opt, currency) });
      if (Object.keys(errs).length || !parsed.success || !opt) throw fieldErrors(errs);
      const f = parsed.data;
      const amount = parseAmount(f.amount, currencyExponent(currency));
      if ('error' in amount) throw fieldErrors({ amount: amount.error });
      const amountMinor = amount.minor;

      const now = clock.now();
      prune(now);
      const gk = guardKeyFor(f.card.number, amountMinor, currency);
      const repeat = recent.has(gk);
      // Claim the guard before any await, so two identical charges at once cannot both pass it.
      if (!repeat) recent.set(gk, now);
      let cipher: string;
      let client: ServiceClient;
      try {
        const k = await keys();
        client = k.client;
        cipher = cipherFor(f.card, k.pem);
      } catch (e) {
        if (!repeat) recent.delete(gk); // nothing was saved or sent
        throw e;
      }
      const prepared: PreparedCharge = {
        amountMinor,
        currency,
        providerCode: opt.providerCode,
        description: f.description.trim(),
        customerName: f.customerName || null,
        customerEmail: f.customerEmail || null,
        chargeCustomer: !!f.chargeCustomer,
        allowFinalStatusChange: !!f.allowFinalStatusChange,
        brand: detectBrand(f.card.number),
        last4: last4(f.card.number),
        cipher,
        guardKey: gk,
      };
      wipeCard(f.card as unknown as Record<string, unknown>);
      wipeCard(form.card as unknown as Record<string, unknown>);

      if (repeat) {
        const token = crypto.randomBytes(16).toString('hex');
        const timer = setTimeout(() => cancelRepeat(token), CONFIRM_TTL_MS);
        timer.unref();
        held.set(token, { charge: prepared, expires: now + CONFIRM_TTL_MS, timer });
        return {
          collection: null,
          outcome: {
            kind: 'needs_confirmation',
            token,
            message: `This card was charged ${displayMinor(amountMinor, currency)} a few minutes ago. Charge it again?`,
          },
        };
      }
      return await submit(prepared, client, signal);
    } finally {
      wipeCard(copy);
      if (form) wipeCard(form.card as unknown as Record<string, unknown>);
    }
  }

  /** Saves the intent, then sends initialize and follows the payment window. */
  async function submit(p: PreparedCharge, client: ServiceClient, signal?: AbortSignal): Promise<ChargeResult> {
    const now = clock.now();
    const { amountMinor, currency } = p;
    // The intent, saved before anything is sent.
    const reference = newMerchantReference(now);
    const operator = val(deps.operator);
    const id = writeTransaction(db, () => {
      const info = db
        .prepare(
          `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, customer_name, customer_email,
               charge_customer, allow_final_status_change, operator, provider_code, redirect_url, card_brand, card_last4, status, status_changed_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'INTENT', ?)`,
        )
        .run(
          reference,
          now,
          amountMinor,
          currency,
          p.description,
          p.customerName,
          p.customerEmail,
          p.chargeCustomer ? 1 : 0,
          p.allowFinalStatusChange ? 1 : 0,
          operator,
          p.providerCode,
          val(deps.redirectUrl),
          p.brand,
          p.last4,
          now,
        );
      const cid = Number(info.lastInsertRowid);
      appendEvent(db, {
        collectionId: cid,
        merchantReference: reference,
        source: 'intent',
        kind: 'intent_saved',
        status: 'INTENT',
        receivedAt: now,
        signature: 'not_applicable',
        amountMinor,
        currency,
        actor: operator,
        dedupeKey: `intent:${reference}`,
      });
      return cid;
    });
    deps.logger?.info({ reference, currency, amountMinor }, 'card charge: intent saved, sending initialize');

    const sent = await send(id, reference, client, p.cipher, false);
    const outcome = await afterPending(id, sent, signal);
    return { collection: getCollection(db, id)?.collection ?? null, outcome };
  }

  function cancelRepeat(token: string): void {
    const h = held.get(token);
    if (!h) return;
    clearTimeout(h.timer);
    held.delete(token);
  }

  async function confirmRepeat(token: string, opts: { signal?: AbortSignal } = {}): Promise<ChargeResult> {
    const h = held.get(token);
    if (!h || h.expires <= clock.now()) {
      cancelRepeat(token);
      throw new PaymentError('expired', 'This confirmation has expired; type the card again.', 'token');
    }
    clearTimeout(h.timer);
    held.delete(token);
    recent.set(h.charge.guardKey, clock.now());
    const { client } = await keys();
    return submit(h.charge, client, opts.signal);
  }

  async function resend(
    reference: string,
    card: CardFields,
    opts: { signal?: AbortSignal } = {},
  ): Promise<ChargeResult> {
    try {
      const found = getCollection(db, reference);
      if (!found) throw new PaymentError('not_found', `No payment with reference ${reference}.`, 'reference');
      const c = found.collection;
      if (c.status !== 'UNKNOWN' && c.status !== 'INTENT') {
        throw new PaymentError(
          'conflict',
          `Payment ${reference} is ${c.status}; only a payment whose outcome is unknown can be sent again.`,
          'reference',
        );
      }
      const parsed = cardFormSchema.shape.card.safeParse(card);
      if (!parsed.success) throw fieldErrors({ card: 'the card details are incomplete' });
      const errs = validateCardForm(
        { amount: '1', currency: c.currency, description: c.description.padEnd(10, '.'), card: parsed.data },
        {
          now: clock.now(),
          limits: {
            minMinor: 0,
            maxMinor: Number.MAX_SAFE_INTEGER,
            maxDailyMinor: Number.MAX_SAFE_INTEGER,
            collectedTodayMinor: 0,
            exponent: 0,
          },
        },
      );
      delete errs.amount;
      delete errs.description;
      delete errs.currency;
      if (Object.keys(errs).length) throw fieldErrors(errs);
      if (
        c.cardLast4 &&
        (last4(parsed.data.number) !== c.cardLast4 || detectBrand(parsed.data.number) !== c.cardBrand)
      ) {
        throw fieldErrors({
          'card.number': `this is not the card of payment ${reference} (•••• ${c.cardLast4}); type the same card`,
        });
      }
      const { client, pem } = await keys();
      const cipher = cipherFor(parsed.data, pem);
      wipeCard(parsed.data as unknown as Record<string, unknown>);
      wipeCard(card as unknown as Record<string, unknown>);
      deps.logger?.info({ reference }, 'card charge: re-sending initialize with the same reference');
      const sent = await send(c.id, reference, client, cipher, true);
      const outcome = await afterPending(c.id, sent, opts.signal);
      return { collection: getCollection(db, c.id)?.collection ?? null, outcome };
    } finally {
      wipeCard(card as unknown as Record<string, unknown>);
    }
  }

  async function handleRedirect(url: string): Promise<RedirectResult> {
    if (!isRedirectUrl(url, val(deps.redirectUrl))) {
      throw new PaymentError('validation', 'This address is not the configured redirect URL; it was ignored.', 'url');
    }
    const p = redirectParams(url);
    const reference = p.merchant_reference ?? '';
    if (!reference)
      throw new PaymentError(
        'validation',
        'The redirect has no merchant_reference; it was ignored.',
        'merchant_reference',
      );
    const status = (p.transaction_status ?? '').toUpperCase() || null;
    const fields = {
      event: p.event ?? '',
      merchant_reference: reference,
      internal_reference: p.internal_reference ?? '',
      transaction_type: p.transaction_type ?? '',
      transaction_status: p.transaction_status ?? '',
    };
    const pem = await deps.getServicePublicKeyPem();
    const signingKey = deps.getSigningKey ? await deps.getSigningKey() : null;
    // A '+' in base64 arrives as a space when the query was not percent-encoded.
    const rsa = p.rsa_signature?.replace(/ /g, '+');
    const check = checkSignatures(
      fields,
      { hmacHeader: p.hmac_signature, rsaSignature: rsa },
      { signingKey, servicePublicKey: pem },
    );
    const found = getCollection(db, reference);
    const sortedQuery = [...new URL(url).searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const dedupe = 'redirect:' + crypto.createHash('sha256').update(JSON.stringify(sortedQuery)).digest('hex');
    events.append({
      collectionId: found?.collection.id ?? null,
      merchantReference: reference,
      internalReference: fields.internal_reference || null,
      source: 'redirect',
      kind: 'outcome',
      status,
      receivedAt: clock.now(),
      signature: check.state,
      dedupeKey: dedupe,
      payload: JSON.stringify(p),
      statusMessage: `redirect: ${status ?? 'no status'}`,
      ...(check.reason && check.state !== 'verified' ? { note: `signature ${check.state}: ${check.reason}` } : {}),
    });
    const collection = found ? emit(found.collection.id) : null;
    let outcome: ChargeOutcome;
    if (check.state !== 'verified') {
      outcome = {
        kind: 'unverified',
        status,
        message: `The payment page reported ${status ?? 'no status'}, but its signature did not verify (${check.state}); wait for the callback before telling the customer.`,
      };
    } else if (isFinal(status)) {
      const k = status.toLowerCase() as 'completed' | 'failed' | 'cancelled';
      const words = { completed: 'Approved', failed: 'Declined', cancelled: 'Cancelled' } as const;
      outcome = { kind: k, verified: true, message: words[k] };
    } else {
      outcome = {
        kind: 'unverified',
        status,
        message: `The payment page reported "${status ?? ''}", which is not a final status.`,
      };
    }
    return { collection, status, signature: check.state, outcome };
  }

  async function options(): Promise<CardOptionView[]> {
    const opts = await cardOptions();
    const now = clock.now();
    return opts
      .filter((o) => isKnownCurrency(o.currency))
      .map((o) => {
        const collected = collectedToday(db, o.currency, now);
        return {
          providerCode: o.providerCode,
          providerName: o.providerName,
          currency: o.currency,
          exponent: currencyExponent(o.currency),
          minMinor: o.minMinor,
          maxMinor: o.maxMinor,
          maxDailyMinor: o.maxDailyMinor,
          collectedTodayMinor: collected,
          remainingTodayMinor: Math.max(0, o.maxDailyMinor - collected),
        };
      });
  }

  return {
    charge: (form, opts = {}) => chargeValidated(form, opts.signal),
    confirmRepeat,
    cancelRepeat,
    resend,
    handleRedirect,
    options,
    dispose() {
      for (const t of [...held.keys()]) cancelRepeat(t);
      recent.clear();
      events.dispose();
    },
  };
}
