// The errors a caller of the service client can act on. Every failure of a service call is one of
// these; `kind` is stable and safe to show, send over IPC, and store in a poll log. They belong to
// the one error family of main (DeskError), exposed: their messages are written for the user.
import { DeskError } from '../errors.shared.js';
import type { Words } from '../words/words.shared.js';
import type { ServiceErrorKind } from './error-kinds.shared.js';

export type { ServiceErrorKind };

export abstract class ServiceError extends DeskError {
  /** Each subclass sets its own (a class field, set after this constructor runs). */
  declare readonly kind: ServiceErrorKind;
  declare readonly expose: true;
  /** HTTP status when there was a response. */
  readonly status: number | undefined;
  /** The service's own message from the error envelope, when it sent one. */
  readonly serviceMessage: string | undefined;
  constructor(
    message: string | Words,
    opts: {
      status?: number | undefined;
      serviceMessage?: string | undefined;
      cause?: unknown | undefined;
      field?: string | undefined;
    } = {},
  ) {
    super('service', message, { cause: opts.cause, field: opts.field, expose: true }); // kind: set by the subclass
    this.status = opts.status;
    this.serviceMessage = opts.serviceMessage;
  }
}

/** 401: keys missing or wrong. Fix the keys in Settings. */
export class AuthenticationError extends ServiceError {
  override readonly kind = 'authentication' as const;
}

/** 400/422: the service rejected a value. `field` names it where the service (or we) could tell. */
export class ValidationError extends ServiceError {
  override readonly kind = 'validation' as const;
  constructor(
    message: string | Words,
    field: string | undefined,
    opts: { status?: number | undefined; serviceMessage?: string | undefined } = {},
  ) {
    super(message, { ...opts, field });
  }
}

export class ForbiddenError extends ServiceError {
  override readonly kind = 'forbidden' as const;
}

export class NotFoundError extends ServiceError {
  override readonly kind = 'not_found' as const;
}

/** 429: wait `retryAfterMs` (from Retry-After) before asking again. */
export class RateLimitedError extends ServiceError {
  override readonly kind = 'rate_limited' as const;
  constructor(
    message: string | Words,
    readonly retryAfterMs: number | undefined,
    opts: { status?: number | undefined; serviceMessage?: string | undefined } = {},
  ) {
    super(message, opts);
  }
}

/** 500/502/503/504. */
export class UnavailableError extends ServiceError {
  override readonly kind = 'unavailable' as const;
}

/** No HTTP response: refused, reset, DNS, TLS, timeout. */
export class NetworkError extends ServiceError {
  override readonly kind = 'network' as const;
}

/**
 * A 2xx answer whose status says it did not succeed ("declined", "failed": HTTP 200 and code 200 are not
 * enough, the contract's success is code 200 and status success). `serviceMessage` is what it said.
 */
export class DeclinedError extends ServiceError {
  override readonly kind = 'declined' as const;
}

/** A response that is not the JSON we expect: an HTML error page, truncated JSON, wrong types. */
export class UnreadableResponseError extends ServiceError {
  override readonly kind = 'unreadable' as const;
  constructor(
    message: string | Words,
    readonly excerpt: string,
    opts: { status?: number; cause?: unknown } = {},
  ) {
    super(message, opts);
  }
}

/**
 * Initialize only: the request may have reached the service and we cannot tell whether a collection
 * was created (timeout, reset, 5xx, unreadable answer). Never retry with a new reference; re-send the
 * same merchant_reference.
 */
export class UnknownOutcomeError extends ServiceError {
  override readonly kind = 'unknown_outcome' as const;
  /** What made the outcome unknowable: no answer in time, the connection broke, a 5xx, or an answer we could not read. */
  readonly reason: UnknownOutcomeReason;
  constructor(
    message: string | Words,
    opts: {
      status?: number | undefined;
      serviceMessage?: string | undefined;
      cause?: unknown | undefined;
      reason?: UnknownOutcomeReason | undefined;
    } = {},
  ) {
    super(message, opts);
    this.reason = opts.reason ?? 'connection';
  }
}

export type UnknownOutcomeReason = 'timeout' | 'connection' | 'server_error' | 'unreadable';

/**
 * Initialize only: 422 "duplicate merchant_reference". The collection EXISTS (created by an earlier
 * send of the same reference); record it as such, never as rejected. Carries what the service told
 * us about the existing collection, when it did.
 */
export class DuplicateReferenceError extends ValidationError {
  readonly duplicate = true as const;
  /** When the service named a page the desk will not open (service-url.ts): what it was and why, in words. */
  readonly refusedPaymentUrl: string | undefined;
  constructor(
    message: string | Words,
    readonly merchantReference: string,
    readonly internalReference: string | undefined,
    readonly paymentUrl: string | undefined,
    opts: { status?: number | undefined; serviceMessage?: string | undefined; refusedPaymentUrl?: string } = {},
  ) {
    super(message, 'merchant_reference', opts);
    this.refusedPaymentUrl = opts.refusedPaymentUrl;
  }
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

// --- Not service failures: bad local input (card form, key file) and bad wire data outside a call ---

/** The card object is not acceptable. `field` names the card field; the message never contains its value. */
export class CardDataError extends DeskError {
  declare readonly field: string;
  constructor(field: string, message: string) {
    // Not exposed as it is: the charge turns it into a form error (main/collections/charge/service.ts).
    super('validation', message, { field });
  }
}

/** The service public key (PEM) cannot be used: not a key, a private key, a certificate, not RSA, too short. */
export class ServiceKeyError extends DeskError {
  constructor(message: string | Words, opts: { cause?: unknown } = {}) {
    super('validation', message, opts);
  }
}

/**
 * Data from the service (a response body, a callback body, a redirect) does not have the shape or
 * meaning we expect. `field` is the path of the first bad field, e.g. "merchant_balances[2].available_balance".
 */
export class WireFormatError extends DeskError {
  declare readonly field: string;
  constructor(
    field: string,
    readonly problem: string,
    readonly issueCount = 1,
  ) {
    super(
      'unreadable',
      `${field}: ${problem}${issueCount > 1 ? ` (and ${issueCount - 1} more problem${issueCount > 2 ? 's' : ''})` : ''}`,
      { field },
    );
  }
}
