// Sending an UNKNOWN (or never sent) payment again with the SAME merchant_reference: the card is typed
// again and must be the payment's card (brand and last four), and a team desk needs the team
// database's claim on the intent first. "Duplicate reference" from the service then proves it exists.
import { getCollection } from '../query.js';
import { words } from '../../words/words.shared.js';
import { PaymentError, fieldErrors } from '../errors.js';
import { parseCard, type CardFields, type ValidCard } from '../card-input.shared.js';
import { detectBrand, last4 } from '../card-number.shared.js';
import { cipherFor, wipeCard } from './card-data.js';
import { sendInitialize } from './initialize.js';
import { followPaymentPage } from './payment-page.js';
import { following, serviceKeys } from './context.js';
import type { ChargeCallOptions, ChargeContext, ChargeResult } from './types.js';

export async function resend(
  ctx: ChargeContext,
  reference: string,
  card: CardFields,
  opts: ChargeCallOptions,
): Promise<ChargeResult> {
  const { db, deps } = ctx;
  let valid: ValidCard | undefined; // the parsed copy of the card: wiped too, whatever happens
  try {
    const found = getCollection(db, reference);
    if (!found) throw new PaymentError('not_found', `No payment with reference ${reference}.`, 'reference');
    const c = found.collection;
    if (c.status !== 'UNKNOWN' && c.status !== 'INTENT') {
      throw new PaymentError('conflict', words('payment.notUnknown', { reference, status: c.status }), 'reference');
    }
    const parsed = parseCard(card, ctx.clock.now());
    if (!parsed.ok) throw fieldErrors(parsed.errors);
    valid = parsed.value;
    if (c.cardLast4 && (last4(valid.number) !== c.cardLast4 || detectBrand(valid.number) !== c.cardBrand)) {
      throw fieldErrors({
        'card.number': words('payment.notThisCard', { reference, last4: c.cardLast4 }),
      });
    }
    const { client, pem } = await serviceKeys(deps);
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
