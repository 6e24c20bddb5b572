// No answer from the service (time-out, refused, reset, not found): the ServiceError that says why in
// plain words. A GET is simply unreachable; a charge is safe to send again only when nothing left this
// desk, otherwise its outcome is unknown.
import { NetworkError, ServiceError, UnknownOutcomeError, type UnknownOutcomeReason } from './errors.js';
import type { TransportFailure } from './transport.js';
import { opName, type AnswerContext, type Op } from './answers.js';

/** No answer to a GET: a NetworkError that says why. */
export function transportError(ctx: AnswerContext, op: Op, f: TransportFailure): ServiceError {
  const what = opName(op);
  if (f.timeout)
    return new NetworkError(
      `No answer from the service at ${ctx.origin} for ${what} within ${duration(ctx.timeoutMs)}.`,
      { cause: f.cause },
    );
  return new NetworkError(`Could not reach the service at ${ctx.origin} for ${what}: ${describeCode(f.code)}.`, {
    cause: f.cause,
  });
}

/**
 * No answer to a charge: safe to re-send when nothing can have reached the service (a NetworkError);
 * otherwise the outcome is unknown, and only the same merchant_reference may be sent again.
 */
export function initializeTransportError(ctx: AnswerContext, f: TransportFailure): ServiceError {
  if (f.notSent) {
    const e = transportError(ctx, 'initialize', f);
    return new NetworkError(
      `${e.message} Nothing was sent: it is safe to try again with the same merchant_reference.`,
      { cause: f.cause },
    );
  }
  const reason: UnknownOutcomeReason = f.timeout ? 'timeout' : 'connection';
  return new UnknownOutcomeError(
    f.timeout
      ? `The charge was sent but no answer came within ${duration(ctx.timeoutMs)}: the outcome is unknown. Check it before charging again, and only re-send the same merchant_reference.`
      : `The charge was sent but ${describeCode(f.code)} before an answer: the outcome is unknown. Check it before charging again, and only re-send the same merchant_reference.`,
    { cause: f.cause, reason },
  );
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

const CODE_TEXT: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  UND_ERR_SOCKET: 'the connection was closed',
  EPIPE: 'the connection was closed',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be looked up',
  ENETUNREACH: 'the network is unreachable',
  EHOSTUNREACH: 'the host is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
};

function describeCode(code: string): string {
  const text = CODE_TEXT[code];
  if (text) return `${text} (${code})`;
  if (/CERT|TLS|SSL/i.test(code)) return `the TLS certificate was not accepted (${code})`;
  return `the connection failed (${code})`;
}
