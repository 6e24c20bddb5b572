// Charging a card: check the form once (card-input.shared.ts parseCharge), save the intent BEFORE sending, encrypt, initialize, record what the
// service answered, open the payment window, capture the redirect. Each step has its own file in
// ./charge/; this one composes them and holds the per-service state (repeat guard, event writer).
//
// Card data lives only in the request object and the card object built from it; both have their
// fields overwritten as soon as the cipher is built. Only brand and last four digits are stored.
import type { ServiceClient } from '../../service/types.js';
import { displayMinor } from '../../money/index.js';
import { getCollection } from '../query.js';
import { PaymentError, fieldErrors } from '../errors.js';
import {
  detectBrand,
  last4,
  parseCard,
  parseCharge,
  type CardFields,
  type CardForm,
  type ValidCard,
} from '../card-input.shared.js';
import { cipherFor, wipeCard } from './card-data.js';
import { createOptionLimits, type CardOptionView } from './option-limits.js';
import { createRepeatGuard } from './repeat-guard.js';
import { intentOf, newMerchantReference, saveIntent, sendInitialize } from './initialize.js';
import { chargeEvents } from './record.js';
import { followPaymentPage } from './payment-page.js';
import { handleRedirect } from './redirect.js';
import type { ChargeContext, ChargeResult, ChargeServiceDeps, PreparedCharge, RedirectResult } from './types.js';

export type { ChargeLogger, ChargeOutcome, ChargeResult, ChargeServiceDeps, RedirectResult } from './types.js';
export type { CardOptionView } from './option-limits.js';

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

export function createChargeService(deps: ChargeServiceDeps): ChargeService {
  const { db, clock } = deps;
  const val = <T>(v: T | (() => T)): T => (typeof v === 'function' ? (v as () => T)() : v);
  const limits = createOptionLimits(db, clock, deps);
  const guard = createRepeatGuard(clock, deps.repeatWindowMs);
  const ctx: ChargeContext = {
    db,
    clock,
    deps,
    // What the service answered is stored through this before the charge goes on (waiting while the
    // database is locked); on a team profile with an outbox row, pushed to the team from there, with
    // the operator (the desk's login) as its actor.
    events: chargeEvents(db, {
      team: () => deps.team?.() ?? null,
      now: () => clock.now(),
      logger: deps.logger,
      operator: () => val(deps.operator),
    }),
    emit(id) {
      const c = getCollection(db, id)?.collection ?? null;
      if (c) deps.onUpdate?.(c);
      return c;
    },
    redirectUrl: () => val(deps.redirectUrl),
    operator: () => val(deps.operator),
  };

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

  /**
   * Saves the intent, then sends initialize and follows the payment window. On a team profile the intent
   * is committed in the team database first: a reference taken by another desk, a login that may not
   * charge, or an unreachable database stops the charge here, before anything is saved or sent.
   */
  async function submit(p: PreparedCharge, client: ServiceClient, signal?: AbortSignal): Promise<ChargeResult> {
    const reference = (deps.newReference ?? newMerchantReference)(clock.now());
    const team = deps.team?.() ?? null;
    const intent = intentOf(ctx, p, reference);
    if (team) {
      try {
        await team.recordIntent(intent);
      } catch (e) {
        guard.release(p.guardKey); // nothing was saved or sent
        throw e;
      }
    }
    const id = saveIntent(ctx, intent);
    const sent = await sendInitialize(ctx, id, reference, client, p.cipher, false);
    const outcome = await followPaymentPage(ctx, id, sent, signal);
    return { collection: getCollection(db, id)?.collection ?? null, outcome };
  }

  async function charge(form: CardForm, signal?: AbortSignal): Promise<ChargeResult> {
    let card: CardFields | undefined; // the parsed copy of the card: wiped too
    try {
      const currency = typeof form.currency === 'string' ? form.currency.trim().toUpperCase() : '';
      const opt = await limits.option(currency);
      const parsed = parseCharge(form, { now: clock.now(), limits: limits.limitsFor(opt, currency) });
      if (!parsed.ok) throw fieldErrors(parsed.errors);
      const f = parsed.value;
      card = f.card;
      // parseCharge refuses a currency without an option; this only tells the type checker.
      if (!opt) throw fieldErrors({ currency: `no active card option for ${currency}` });
      const { amountMinor } = f;

      const claim = guard.claim(f.card.number, amountMinor, f.currency);
      let cipher: string;
      let client: ServiceClient;
      try {
        const k = await keys();
        client = k.client;
        cipher = cipherFor(f.card, k.pem);
      } catch (e) {
        if (!claim.repeat) guard.release(claim.key); // nothing was saved or sent
        throw e;
      }
      const prepared: PreparedCharge = {
        amountMinor,
        currency: f.currency,
        providerCode: opt.providerCode,
        description: f.description,
        customerName: f.customerName,
        customerEmail: f.customerEmail,
        chargeCustomer: f.chargeCustomer,
        allowFinalStatusChange: f.allowFinalStatusChange,
        brand: detectBrand(f.card.number),
        last4: last4(f.card.number),
        cipher,
        guardKey: claim.key,
      };
      wipeCard(f.card);
      wipeCard(form.card);

      if (claim.repeat) {
        const { token } = guard.hold(prepared);
        return {
          collection: null,
          outcome: {
            kind: 'needs_confirmation',
            token,
            message: `This card was charged ${displayMinor(amountMinor, f.currency)} a few minutes ago. Charge it again?`,
          },
        };
      }
      return await submit(prepared, client, signal);
    } finally {
      wipeCard(card);
      if (form) wipeCard(form.card);
    }
  }

  async function confirmRepeat(token: string, opts: { signal?: AbortSignal } = {}): Promise<ChargeResult> {
    const held = guard.take(token);
    if (!held) throw new PaymentError('expired', 'This confirmation has expired; type the card again.', 'token');
    const { client } = await keys();
    // A new intent under a new reference (submit): on a team desk creating it is the claim, so no other.
    return submit(held, client, opts.signal);
  }

  async function resend(
    reference: string,
    card: CardFields,
    opts: { signal?: AbortSignal } = {},
  ): Promise<ChargeResult> {
    let valid: ValidCard | undefined; // the parsed copy of the card: wiped too, whatever happens
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
      const parsed = parseCard(card, clock.now());
      if (!parsed.ok) throw fieldErrors(parsed.errors);
      valid = parsed.value;
      if (c.cardLast4 && (last4(valid.number) !== c.cardLast4 || detectBrand(valid.number) !== c.cardBrand)) {
        throw fieldErrors({
          'card.number': `this is not the card of payment ${reference} (•••• ${c.cardLast4}); type the same card`,
        });
      }
      const { client, pem } = await keys();
      // A team desk re-sends only with the team database's claim on the intent: its creator or an
      // admin, one at a time. Refused: nothing is sent, no window opens, nothing is stored here.
      await deps.team?.()?.claim(reference);
      const cipher = cipherFor(valid, pem);
      wipeCard(valid);
      wipeCard(card);
      deps.logger?.info({ reference }, 'card charge: re-sending initialize with the same reference');
      const sent = await sendInitialize(ctx, c.id, reference, client, cipher, true);
      const outcome = await followPaymentPage(ctx, c.id, sent, opts.signal);
      return { collection: getCollection(db, c.id)?.collection ?? null, outcome };
    } finally {
      wipeCard(valid);
      wipeCard(card);
    }
  }

  return {
    charge: (form, opts = {}) => charge(form, opts.signal),
    confirmRepeat,
    cancelRepeat: (token) => guard.cancel(token),
    resend,
    handleRedirect: (url) => handleRedirect(ctx, url),
    options: () => limits.options(),
    dispose() {
      guard.dispose();
      ctx.events.dispose();
    },
  };
}
