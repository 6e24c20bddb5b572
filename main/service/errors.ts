// The errors a caller of the service client can act on. Every failure of a service call is one of
// these; `kind` is stable and safe to show, send over IPC, and store in a poll log.
export type ServiceErrorKind =
  | 'authentication'
  | 'validation'
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  | 'unavailable'
  | 'network'
  | 'unreadable'
  | 'unknown_outcome';

export abstract class ServiceError extends Error {
  abstract readonly kind: ServiceErrorKind;
  /** HTTP status when there was a response. */
  readonly status: number | undefined;
  /** The service's own message from the error envelope, when it sent one. */
  readonly serviceMessage: string | undefined;
  constructor(message: string, opts: { status?: number; serviceMessage?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.status = opts.status;
    this.serviceMessage = opts.serviceMessage;
  }
}

/** 401: keys missing or wrong. Fix the keys in Settings. */
export class AuthenticationError extends ServiceError {
  readonly kind = 'authentication' as const;
}

/** 400/422: the service rejected a value. `field` names it where the service (or we) could tell. */
export class ValidationError extends ServiceError {
  readonly kind = 'validation' as const;
  constructor(
    message: string,
    readonly field: string | undefined,
    opts: { status?: number; serviceMessage?: string } = {},
  ) {
    super(message, opts);
  }
}

export class ForbiddenError extends ServiceError {
  readonly kind = 'forbidden' as const;
}

export class NotFoundError extends ServiceError {
  readonly kind = 'not_found' as const;
}

/** 429: wait `retryAfterMs` (from Retry-After) before asking again. */
export class RateLimitedError extends ServiceError {
  readonly kind = 'rate_limited' as const;
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    opts: { status?: number; serviceMessage?: string } = {},
  ) {
    super(message, opts);
  }
}

/** 500/502/503/504. */
export class UnavailableError extends ServiceError {
  readonly kind = 'unavailable' as const;
}

/** No HTTP response: refused, reset, DNS, TLS, timeout. */
export class NetworkError extends ServiceError {
  readonly kind = 'network' as const;
}

/** A response that is not the JSON we expect: an HTML error page, truncated JSON, wrong types. */
export class UnreadableResponseError extends ServiceError {
  readonly kind = 'unreadable' as const;
  constructor(
    message: string,
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
  readonly kind = 'unknown_outcome' as const;
  /** What made the outcome unknowable: no answer in time, the connection broke, a 5xx, or an answer we could not read. */
  readonly reason: UnknownOutcomeReason;
  constructor(
    message: string,
    opts: { status?: number; serviceMessage?: string; cause?: unknown; reason?: UnknownOutcomeReason } = {},
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
  constructor(
    message: string,
    readonly merchantReference: string,
    readonly internalReference: string | undefined,
    readonly paymentUrl: string | undefined,
    opts: { status?: number; serviceMessage?: string } = {},
  ) {
    super(message, 'merchant_reference', opts);
  }
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

// --- Not service failures: bad local input (card form, key file) and bad wire data outside a call ---

/** The card object is not acceptable. `field` names the card field; the message never contains its value. */
export class CardDataError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'CardDataError';
  }
}

/** The service public key (PEM) cannot be used: not a key, a private key, a certificate, not RSA, too short. */
export class ServiceKeyError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ServiceKeyError';
  }
}

/**
 * Data from the service (a response body, a callback body, a redirect) does not have the shape or
 * meaning we expect. `field` is the path of the first bad field, e.g. "merchant_balances[2].available_balance".
 */
export class WireFormatError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
    readonly issueCount = 1,
  ) {
    super(`${field}: ${problem}${issueCount > 1 ? ` (and ${issueCount - 1} more problem${issueCount > 2 ? 's' : ''})` : ''}`);
    this.name = 'WireFormatError';
  }
}
