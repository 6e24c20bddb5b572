// A redirect URL captured by the payment window -> a recorded redirect event and an outcome the agent
// may tell the customer only when its signatures verify and its status is final.
import crypto from 'node:crypto';
import { english, words, type Words } from '../../words/words.shared.js';

const said = (w: Words) => ({ message: english(w), words: w });
import { PaymentError } from '../errors.js';
import { isFinal } from '../model.js';
import { isRedirectUrl, redirectParams, redirectSignatureCheck } from '../redirect-url.js';
import { redirectEvidence } from '../evidence.js';
import { getCollection } from '../query.js';
import type { ChargeContext, ChargeOutcome, RedirectResult } from './types.js';

export async function handleRedirect(ctx: ChargeContext, url: string): Promise<RedirectResult> {
  const { deps } = ctx;
  if (!isRedirectUrl(url, ctx.redirectUrl())) {
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
  const pem = await deps.getServicePublicKeyPem();
  const signingKey = deps.getSigningKey ? await deps.getSigningKey() : null;
  const check = redirectSignatureCheck(p, { signingKey, servicePublicKey: pem });
  const found = getCollection(ctx.db, reference);
  const sortedQuery = [...new URL(url).searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const dedupe = 'redirect:' + crypto.createHash('sha256').update(JSON.stringify(sortedQuery)).digest('hex');
  await ctx.events.append({
    collectionId: found?.collection.id ?? null,
    merchantReference: reference,
    internalReference: p.internal_reference || null,
    source: 'redirect',
    kind: 'outcome',
    status,
    receivedAt: ctx.clock.now(),
    signature: check.state,
    dedupeKey: dedupe,
    payload: JSON.stringify(p),
    // What a teammate's desk checks again: the query as captured (team/evidence.ts).
    evidence: redirectEvidence(url),
    statusMessage: `redirect: ${status ?? 'no status'}`,
    ...(check.reason && check.state !== 'verified' ? { note: `signature ${check.state}: ${check.reason}` } : {}),
  });
  const collection = found ? ctx.emit(found.collection.id) : null;
  let outcome: ChargeOutcome;
  if (check.state !== 'verified') {
    outcome = {
      kind: 'unverified',
      status,
      ...said(
        words('payment.unverified', {
          ...(status ? { status } : { statusId: 'payment.noStatus' }),
          state: check.state,
        }),
      ),
    };
  } else if (isFinal(status)) {
    const k = status.toLowerCase() as 'completed' | 'failed' | 'cancelled';
    outcome = { kind: k, verified: true, ...said(words(`ui.status.${status}`)) };
  } else {
    outcome = { kind: 'unverified', status, ...said(words('payment.notFinal', { status: status ?? '' })) };
  }
  return { collection, status, signature: check.state, outcome };
}
