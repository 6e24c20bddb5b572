// After initialize: a PENDING collection's hosted payment page opens in the payment window; the captured
// redirect goes to redirect.ts, and a window closed (or failed) first is recorded as such.
import { displayMinor } from '../../money/index.js';
import { english, words } from '../../words/words.shared.js';
import type { PaymentWindowResult } from '../payment-window.js';
import { isRedirectUrl } from '../redirect-url.js';
import { handleRedirect } from './redirect.js';
import { collectionRecord } from '../../store/sqlite/read/collection-detail.js';
import type { ChargeContext, ChargeOutcome } from './types.js';
import { messageOf } from '../../errors.shared.js';

export async function followPaymentPage(
  ctx: ChargeContext,
  collectionId: number,
  outcome: ChargeOutcome,
  signal?: AbortSignal,
): Promise<ChargeOutcome> {
  const { deps } = ctx;
  ctx.emit(collectionId);
  if (outcome.kind !== 'pending') return outcome;
  const opener =
    deps.paymentWindow === undefined
      ? undefined
      : typeof deps.paymentWindow === 'function'
        ? deps.paymentWindow()
        : deps.paymentWindow;
  if (!opener) return outcome;
  const row = collectionRecord(ctx.db, collectionId)!;
  let res: PaymentWindowResult;
  try {
    res = await opener.open({
      paymentUrl: outcome.paymentUrl,
      redirectUrl: ctx.redirectUrl(),
      title: `Pay ${displayMinor(row.amount_minor, row.currency)} (${row.merchant_reference})`,
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    res = { kind: 'error', message: messageOf(e) };
  }
  if (res.kind === 'redirect') {
    if (isRedirectUrl(res.url, ctx.redirectUrl())) return (await handleRedirect(ctx, res.url)).outcome;
  }
  await ctx.events.append({
    collectionId,
    merchantReference: row.merchant_reference,
    source: 'redirect',
    kind: 'window_closed',
    receivedAt: ctx.clock.now(),
    signature: 'not_applicable',
    note:
      res.kind === 'error'
        ? `payment window failed: ${res.message}`
        : res.kind === 'redirect'
          ? 'navigated away from the payment page'
          : 'closed by the agent before the payment finished',
  });
  ctx.emit(collectionId);
  const w = words('payment.windowClosed');
  return { kind: 'window_closed', message: english(w), words: w };
}
