// A new charge: the form checked once (card-input.shared.ts parseCharge), the card encrypted and
// wiped, then either the agent is asked first (the same card and amount charged within minutes) or
// the intent is saved and sent (submit). A confirmed repeat is submitted from the charge held for it.
import type { ServiceClient } from '../../service/types.js';
import { english, words, type Words } from '../../words/words.shared.js';
import { getCollection, startOfDay } from '../query.js';
import { PaymentError, fieldErrors } from '../errors.js';
import { parseCharge, type CardFields, type CardForm, type ValidCharge } from '../card-input.shared.js';
import { detectBrand, last4 } from '../card-number.shared.js';
import type { PaymentOption } from '../../service/types.js';
import { cipherFor, wipeCard } from './card-data.js';
import type { OptionLimits } from './option-limits.js';
import type { RepeatGuard } from './repeat-guard.js';
import { cardFingerprint } from './fingerprint.js';
import { intentOf, newMerchantReference, saveIntent, sendInitialize } from './initialize.js';
import { followPaymentPage } from './payment-page.js';
import { following, serviceKeys } from './context.js';
import type { ChargeCallOptions, ChargeContext, ChargeResult, PreparedCharge } from './types.js';

/** Holds a charge for the agent's answer to "Charge this card again?". */
function askFirst(guard: RepeatGuard, p: PreparedCharge, question: Words): ChargeResult {
  const { token } = guard.hold(p);
  return {
    collection: null,
    outcome: { kind: 'needs_confirmation', token, message: english(question), words: question },
  };
}

/**
 * Saves the intent, then sends initialize and follows the payment window. On a team profile the intent
 * is committed in the team database first, once its guards let it through: a reference taken by another
 * desk, a login that may not charge, the team's daily limit or an unreachable database stops the charge
 * here, before anything is saved or sent; the same card and amount charged at any desk within minutes
 * asks the agent first (unless this is the confirmed repeat).
 */
async function submit(
  ctx: ChargeContext,
  guard: RepeatGuard,
  p: PreparedCharge,
  client: ServiceClient,
  opts: ChargeCallOptions & { confirmedRepeat: boolean },
): Promise<ChargeResult> {
  const { deps } = ctx;
  const now = ctx.clock.now();
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
        guard,
        p,
        words('payment.repeatTeam', {
          amountMinor: p.amountMinor,
          currency: p.currency,
          chargedBy: recorded.chargedBy,
          chargedTime: recorded.chargedAt,
        }),
      );
  }
  const id = saveIntent(ctx, intent);
  const call = following(ctx, opts.onProgress);
  // The card is on its way now: whoever follows this call knows its reference from here on.
  opts.onProgress?.({ reference, status: 'INTENT' });
  const sent = await sendInitialize(call, id, reference, client, p.cipher, false);
  const outcome = await followPaymentPage(call, id, sent, opts.signal);
  return { collection: getCollection(ctx.db, id)?.collection ?? null, outcome };
}

/**
 * A checked charge encrypted for the service, with what decides whether the agent is asked first: a
 * solo desk's own guard (claimed here, given back if nothing is sent), a team desk's card fingerprint.
 */
async function prepare(
  ctx: ChargeContext,
  guard: RepeatGuard,
  f: ValidCharge,
  opt: PaymentOption,
): Promise<{ prepared: PreparedCharge; client: ServiceClient; repeat: boolean }> {
  const { deps } = ctx;
  const { amountMinor } = f;
  // A solo desk remembers recent cards itself; a team desk's team database decides (submit).
  const team = deps.team?.() ?? null;
  const claim = team ? null : guard.claim(f.card.number, amountMinor, f.currency);
  let cipher: string;
  let client: ServiceClient;
  let fingerprint: Buffer | null = null;
  try {
    const k = await serviceKeys(deps);
    client = k.client;
    if (team) {
      const key = await deps.getFingerprintKey?.();
      fingerprint = key ? cardFingerprint(key, f.card.number, amountMinor, f.currency) : null;
    }
    cipher = cipherFor(f.card, k.pem);
  } catch (e) {
    if (claim && !claim.repeat) guard.release(claim.key); // nothing was saved or sent
    fingerprint?.fill(0);
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
  return { prepared, client, repeat: claim?.repeat ?? false };
}

/**
 * A prepared charge is done with once its answer is anything but "ask first" (which holds it, by the
 * guard, for the agent's answer): its card fingerprint is zeroed then, like the card fields.
 */
function spent(p: PreparedCharge, r: ChargeResult | null): void {
  if (r?.outcome.kind !== 'needs_confirmation') p.fingerprint?.fill(0);
}

/** Validates, saves the intent, sends. The card fields of `form` are overwritten before this returns. */
export async function charge(
  ctx: ChargeContext,
  guard: RepeatGuard,
  limits: OptionLimits,
  form: CardForm,
  opts: ChargeCallOptions,
): Promise<ChargeResult> {
  let card: CardFields | undefined; // the parsed copy of the card: wiped too
  try {
    const currency = typeof form.currency === 'string' ? form.currency.trim().toUpperCase() : '';
    const opt = await limits.option(currency);
    const parsed = parseCharge(form, { now: ctx.clock.now(), limits: await limits.limitsFor(opt, currency) });
    if (!parsed.ok) throw fieldErrors(parsed.errors);
    const f = parsed.value;
    card = f.card;
    // parseCharge refuses a currency without an option; this only tells the type checker.
    if (!opt) throw fieldErrors({ currency: words('payment.err.noOption', { currency }) });
    const { prepared, client, repeat } = await prepare(ctx, guard, f, opt);
    wipeCard(f.card);
    wipeCard(form.card);

    if (repeat)
      return askFirst(guard, prepared, words('payment.repeat', { amountMinor: f.amountMinor, currency: f.currency }));
    let r: ChargeResult | null = null;
    try {
      return (r = await submit(ctx, guard, prepared, client, { ...opts, confirmedRepeat: false }));
    } finally {
      spent(prepared, r);
    }
  } finally {
    wipeCard(card);
    if (form) wipeCard(form.card);
  }
}

/** Goes ahead with a charge that needed confirmation (same card and amount within minutes). */
export async function confirmRepeat(
  ctx: ChargeContext,
  guard: RepeatGuard,
  token: string,
  opts: ChargeCallOptions,
): Promise<ChargeResult> {
  const held = guard.take(token);
  if (!held) throw new PaymentError('expired', 'This confirmation has expired; type the card again.', 'token');
  let r: ChargeResult | null = null;
  try {
    const { client } = await serviceKeys(ctx.deps);
    // A new intent under a new reference (submit): on a team desk creating it is the claim, so no other.
    return (r = await submit(ctx, guard, held, client, { ...opts, confirmedRepeat: true }));
  } finally {
    spent(held, r);
  }
}
