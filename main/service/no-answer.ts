// No answer from the service (time-out, refused, reset, not found): the ServiceError that says why in
// plain words. A GET is simply unreachable; a charge is safe to send again only when nothing left this
// desk, otherwise its outcome is unknown.
import { NetworkError, ServiceError, UnknownOutcomeError, type UnknownOutcomeReason } from './errors.js';
import type { TransportFailure } from './transport.js';
import { opWords, type AnswerContext, type Op } from './answers.js';
import { nest, words } from '../words/words.shared.js';

/** No answer to a GET: a NetworkError that says why. */
export function transportError(ctx: AnswerContext, op: Op, f: TransportFailure): ServiceError {
  const what = { origin: ctx.origin, whatId: opWords(op) };
  if (f.timeout)
    return new NetworkError(words('service.noAnswer', { ...what, duration: duration(ctx.timeoutMs) }), {
      cause: f.cause,
    });
  return new NetworkError(words('service.unreachable', { ...what, ...codeWords(f.code) }), { cause: f.cause });
}

/**
 * No answer to a charge: safe to re-send when nothing can have reached the service (a NetworkError);
 * otherwise the outcome is unknown, and only the same merchant_reference may be sent again.
 */
export function initializeTransportError(ctx: AnswerContext, f: TransportFailure): ServiceError {
  if (f.notSent) {
    const e = transportError(ctx, 'initialize', f);
    return new NetworkError(words('service.notSent', nest('first', e.words, e.message)), { cause: f.cause });
  }
  const reason: UnknownOutcomeReason = f.timeout ? 'timeout' : 'connection';
  return new UnknownOutcomeError(
    f.timeout
      ? words('service.sentNoAnswer', { duration: duration(ctx.timeoutMs) })
      : words('service.sentBroken', codeWords(f.code)),
    { cause: f.cause, reason },
  );
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

const CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'UND_ERR_SOCKET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
] as const;

/** What broke, in words: `{why}` of the outer message (the code said as it is). */
function codeWords(code: string) {
  if ((CODES as readonly string[]).includes(code))
    return { whyId: `service.code.${code as (typeof CODES)[number]}`, code } as const;
  if (/CERT|TLS|SSL/i.test(code)) return { whyId: 'service.code.tls', code } as const;
  return { whyId: 'service.code.other', code } as const;
}
