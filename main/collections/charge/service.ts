// Charging a card: check the form once (card-input.shared.ts parseCharge), save the intent BEFORE sending, encrypt, initialize, record what the
// service answered, open the payment window, capture the redirect. Each step has its own file in
// ./charge/; this one composes them and holds the per-service state (repeat guard, event writer).
// The rules of a user's operation around these steps (a team desk's team-first write, claim, actor and
// refusal texts) are main/operations/charge.ts's.
//
// Card data lives only in the request object and the card object built from it; both have their
// fields overwritten as soon as the cipher is built. Only brand and last four digits are stored.
//
// Each call follows its own collection only: its onProgress hears the reference once the intent is
// saved and every status of that collection after, never another desk's or another call's.
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
import { cardFingerprint } from './fingerprint.js';
import { intentOf, newMerchantReference, saveIntent, sendInitialize } from './initialize.js';
import { chargeEvents } from './record.js';
import { followPaymentPage } from './payment-page.js';
import { handleRedirect } from './redirect.js';
import { startOfDay } from '../query.js';
import type {
  ChargeCallOptions,
  ChargeContext,
  ChargeProgress,
  ChargeResult,
  ChargeServiceDeps,
  PreparedCharge,
  RedirectResult,
} from './types.js';

export type {
  ChargeCallOptions,
  ChargeLogger,
  ChargeOutcome,
  ChargeProgress,
  ChargeResult,
  ChargeServiceDeps,
  RedirectResult,
} from './types.js';
export type { CardOptionView } from './option-limits.js';

export interface ChargeService {
  /** Validates, saves the intent, sends. The card fields of `form` are overwritten before this returns. */
  charge(form: CardForm, opts?: ChargeCallOptions): Promise<ChargeResult>;
  /** Goes ahead with a charge that needed confirmation (same card and amount within minutes). */
  confirmRepeat(token: string, opts?: ChargeCallOptions): Promise<ChargeResult>;
  /** Forgets a charge that needed confirmation (its card data is overwritten). */
  cancelRepeat(token: string): void;
  /** Re-sends an UNKNOWN collection with the SAME merchant_reference; the card must be typed again. */
  resend(reference: string, card: CardFields, opts?: ChargeCallOptions): Promise<ChargeResult>;
  /** A redirect URL captured by the payment window. */
  handleRedirect(url: string): Promise<RedirectResult>;
  /** Limits for the form: per active card option, with today's collected total (a team desk: the team's). */
  options(): Promise<CardOptionView[]>;
  /** Today's collected total of a currency that counts against the daily limit (a team desk: the team's). */
  collectedToday(currency: string): Promise<number>;
  /** Stops timers and overwrites held card data. */
  dispose(): void;
}

/** "14:03:07": a time of today in the desk's own clock, for a question the person answers now. */
function clockTime(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** A context whose emit also tells this call's progress (its own collection only). */
function following(ctx: ChargeContext, onProgress: ((p: ChargeProgress) => void) | undefined): ChargeContext {
  if (!onProgress) return ctx;
  return {
    ...ctx,
    emit(id) {
      const c = ctx.emit(id);
      if (c) onProgress({ reference: c.merchantReference, status: c.status });
      return c;
    },
  };
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

  /** Holds a charge for the agent's answer to "Charge this card again?". */
  function askFirst(p: PreparedCharge, message: string): ChargeResult {
    const { token } = guard.hold(p);
    return { collection: null, outcome: { kind: 'needs_confirmation', token, message } };
  }

  /**
   * Saves the intent, then sends initialize and follows the payment window. On a team profile the intent
   * is committed in the team database first, once its guards let it through: a reference taken by another
   * desk, a login that may not charge, the team's daily limit or an unreachable database stops the charge
   * here, before anything is saved or sent; the same card and amount charged at any desk within minutes
   * asks the agent first (unless this is the confirmed repeat).
   */
  async function submit(
    p: PreparedCharge,
    client: ServiceClient,
    opts: ChargeCallOptions & { confirmedRepeat: boolean },
  ): Promise<ChargeResult> {
    const now = clock.now();
    const reference = (deps.newReference ?? newMerchantReference)(now);
    const team = deps.team?.() ?? null;
    const intent = intentOf(ctx, p, reference);
    if (team) {
      const recorded = await team.recordIntent(intent, {
        fingerprint: p.fingerprint,
        confirmedRepeat: opts.confirmedRepeat,
        dayStart: startOfDay(now),
        maxDailyMinor: p.maxDailyMinor,
      });
      if (recorded.kind === 'repeat')
        return askFirst(
          p,
          `This card was charged ${displayMinor(p.amountMinor, p.currency)} by ${recorded.chargedBy} at ${clockTime(recorded.chargedAt)}. Charge it again?`,
        );
    }
    const id = saveIntent(ctx, intent);
    const call = following(ctx, opts.onProgress);
    // The card is on its way now: whoever follows this call knows its reference from here on.
    opts.onProgress?.({ reference, status: 'INTENT' });
    const sent = await sendInitialize(call, id, reference, client, p.cipher, false);
    const outcome = await followPaymentPage(call, id, sent, opts.signal);
    return { collection: getCollection(db, id)?.collection ?? null, outcome };
  }

  async function charge(form: CardForm, opts: ChargeCallOptions): Promise<ChargeResult> {
    let card: CardFields | undefined; // the parsed copy of the card: wiped too
    try {
      const currency = typeof form.currency === 'string' ? form.currency.trim().toUpperCase() : '';
      const opt = await limits.option(currency);
      const parsed = parseCharge(form, { now: clock.now(), limits: await limits.limitsFor(opt, currency) });
      if (!parsed.ok) throw fieldErrors(parsed.errors);
      const f = parsed.value;
      card = f.card;
      // parseCharge refuses a currency without an option; this only tells the type checker.
      if (!opt) throw fieldErrors({ currency: `no active card option for ${currency}` });
      const { amountMinor } = f;

      // A solo desk remembers recent cards itself; a team desk's team database decides (submit).
      const team = deps.team?.() ?? null;
      const claim = team ? null : guard.claim(f.card.number, amountMinor, f.currency);
      let cipher: string;
      let client: ServiceClient;
      let fingerprint: Buffer | null = null;
      try {
        const k = await keys();
        client = k.client;
        if (team) {
          const key = await deps.getFingerprintKey?.();
          fingerprint = key ? cardFingerprint(key, f.card.number, amountMinor, f.currency) : null;
        }
        cipher = cipherFor(f.card, k.pem);
      } catch (e) {
        if (claim && !claim.repeat) guard.release(claim.key); // nothing was saved or sent
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
        guardKey: claim?.key ?? null,
        fingerprint,
        maxDailyMinor: opt.maxDailyMinor,
      };
      wipeCard(f.card);
      wipeCard(form.card);

      if (claim?.repeat)
        return askFirst(
          prepared,
          `This card was charged ${displayMinor(amountMinor, f.currency)} a few minutes ago. Charge it again?`,
        );
      return await submit(prepared, client, { ...opts, confirmedRepeat: false });
    } finally {
      wipeCard(card);
      if (form) wipeCard(form.card);
    }
  }

  async function confirmRepeat(token: string, opts: ChargeCallOptions = {}): Promise<ChargeResult> {
    const held = guard.take(token);
    if (!held) throw new PaymentError('expired', 'This confirmation has expired; type the card again.', 'token');
    const { client } = await keys();
    // A new intent under a new reference (submit): on a team desk creating it is the claim, so no other.
    return submit(held, client, { ...opts, confirmedRepeat: true });
  }

  async function resend(reference: string, card: CardFields, opts: ChargeCallOptions = {}): Promise<ChargeResult> {
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
      opts.onProgress?.({ reference, status: c.status });
      const call = following(ctx, opts.onProgress);
      const sent = await sendInitialize(call, c.id, reference, client, cipher, true);
      const outcome = await followPaymentPage(call, c.id, sent, opts.signal);
      return { collection: getCollection(db, c.id)?.collection ?? null, outcome };
    } finally {
      wipeCard(valid);
      wipeCard(card);
    }
  }

  return {
    charge: (form, opts = {}) => charge(form, opts),
    confirmRepeat,
    cancelRepeat: (token) => guard.cancel(token),
    resend,
    handleRedirect: (url) => handleRedirect(ctx, url),
    options: () => limits.options(),
    collectedToday: (currency) => limits.collectedToday(currency),
    dispose() {
      guard.dispose();
      ctx.events.dispose();
    },
  };
}
