// Charging a card: check the form once (card-input.shared.ts parseCharge), save the intent BEFORE sending,
// encrypt, initialize, record what the service answered, open the payment window, capture the redirect.
// Each step has its own file beside this one (a new charge: new-charge.ts; a re-send: resend.ts); this
// one composes them and holds the per-service state (repeat guard, option limits, event writer).
// The rules of a user's operation around these steps (a team desk's team-first write, claim, actor and
// refusal texts) are main/operations/charge.ts's.
//
// Card data lives only in the request object and the card object built from it; both have their
// fields overwritten as soon as the cipher is built. Only brand and last four digits are stored.
//
// Each call follows its own collection only: its onProgress hears the reference once the intent is
// saved and every status of that collection after, never another desk's or another call's.
import type { CardFields, CardForm } from '../card-input.shared.js';
import { createOptionLimits, type CardOptionView } from './option-limits.js';
import { createRepeatGuard } from './repeat-guard.js';
import { handleRedirect } from './redirect.js';
import { chargeContext } from './context.js';
import { charge, confirmRepeat } from './new-charge.js';
import { resend } from './resend.js';
import type { ChargeCallOptions, ChargeResult, ChargeServiceDeps, RedirectResult } from './types.js';

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

export function createChargeService(deps: ChargeServiceDeps): ChargeService {
  const limits = createOptionLimits(deps.db, deps.clock, deps);
  const guard = createRepeatGuard(deps.clock, deps.repeatWindowMs);
  const ctx = chargeContext(deps);
  return {
    charge: (form, opts = {}) => charge(ctx, guard, limits, form, opts),
    confirmRepeat: (token, opts = {}) => confirmRepeat(ctx, guard, token, opts),
    cancelRepeat: (token) => guard.cancel(token),
    resend: (reference, card, opts = {}) => resend(ctx, reference, card, opts),
    handleRedirect: (url) => handleRedirect(ctx, url),
    options: () => limits.options(),
    collectedToday: (currency) => limits.collectedToday(currency),
    dispose() {
      guard.dispose();
      ctx.events.dispose();
    },
  };
}
