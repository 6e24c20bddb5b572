// The answer to a charge (initialize): what the service accepted, checked against what was sent. Once the
// request was sent, anything the desk cannot read is an unknown outcome, never a failure: the collection
// may exist, and only the same merchant_reference may be sent again.
import { nest, words } from '../words/words.shared.js';
import { UnknownOutcomeError, UnreadableResponseError, WireFormatError } from './errors.js';
import type { RawResponse } from './transport.js';
import type { InitializeAccepted } from './types.js';
import { initializeDataSchema } from './wire.js';
import { parseWire } from './wire-values.js';
import { successEnvelope, type AnswerContext } from './answers.js';
import type { Redact } from './answer-text.js';
import { refusedUrlText, serviceUrlProblem } from './service-url.js';

/**
 * The answer to a charge -> what was accepted. Anything the desk cannot read after the request was
 * sent is an UnknownOutcomeError: the collection may exist.
 */
export function initializeAnswer(
  ctx: AnswerContext,
  raw: RawResponse,
  redact: Redact,
  sentReference: string,
): InitializeAccepted {
  let data: unknown;
  let message: string | undefined;
  try {
    ({ data, message } = successEnvelope(ctx, 'initialize', raw, redact, sentReference));
  } catch (e) {
    if (e instanceof UnreadableResponseError) {
      throw new UnknownOutcomeError(words('service.chargeUnknown', nest('first', e.words, e.message)), {
        status: e.status,
        cause: e,
        reason: 'unreadable',
      });
    }
    throw e;
  }
  let d: {
    internal_reference?: string | null | undefined;
    merchant_reference?: string | null | undefined;
    payment_url: string;
  };
  try {
    d = parseWire(initializeDataSchema, data);
  } catch (e) {
    const msg = e instanceof WireFormatError ? e.message : String(e);
    throw new UnknownOutcomeError(words('service.acceptedBadValue', { status: String(raw.status), where: msg }), {
      status: raw.status,
      cause: e,
      reason: 'unreadable',
    });
  }
  const urlProblem = serviceUrlProblem(d.payment_url, ctx.origin);
  if (urlProblem) {
    throw new UnknownOutcomeError(
      `The service accepted the charge (HTTP ${raw.status}) but ${refusedUrlText('payment_url', d.payment_url, urlProblem)}; the outcome is unknown.`,
      { status: raw.status, reason: 'unreadable' },
    );
  }
  const sentAuto = sentReference === 'auto';
  const merchantReference = d.merchant_reference ?? (sentAuto ? undefined : sentReference);
  if (merchantReference === undefined || (!sentAuto && merchantReference !== sentReference)) {
    throw new UnknownOutcomeError(
      words(merchantReference === undefined ? 'service.acceptedNoReference' : 'service.acceptedOtherReference', {
        status: String(raw.status),
      }),
      { status: raw.status, reason: 'unreadable' },
    );
  }
  return {
    httpStatus: raw.status,
    merchantReference,
    internalReference: d.internal_reference ?? undefined,
    paymentUrl: d.payment_url,
    message,
  };
}
