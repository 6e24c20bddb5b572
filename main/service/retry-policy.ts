// When and how long to wait before asking the service again. Pure: no clock, no timers, no network;
// the client (./client.ts) does the sleeping. Only idempotent requests (the two GETs) are retried:
// a charge (POST initialize) sent twice could charge twice, so its failures go to the caller.
import type { ServiceErrorKind } from './errors.js';
import { doublingDelay } from '../clock.js';

export interface RetryPolicy {
  /** Extra attempts after the first. */
  retries: number;
  /** First back-off step; doubles each retry, jittered, capped at backoffMaxMs. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A Retry-After longer than this is not waited for: the error goes to the caller. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  backoffBaseMs: 500,
  backoffMaxMs: 8_000,
  maxRetryAfterMs: 30_000,
};

export interface RetryRequest {
  method: 'GET' | 'POST';
  /** True when sending it again cannot change anything on the service. */
  idempotent: boolean;
}

/** What failed: the error's kind, and the answer's Retry-After (ms) when it sent one. */
export interface RetryFailure {
  kind: ServiceErrorKind;
  retryAfterMs?: number | undefined;
}

/**
 * Kinds where asking again may help: no answer, the service down for a moment (5xx), or asked to slow
 * down (429). Only the last two come with an answer, so only they can carry a Retry-After.
 */
const RETRYABLE: ReadonlySet<ServiceErrorKind> = new Set<ServiceErrorKind>(['network', 'unavailable', 'rate_limited']);

/** Whether to try again after attempt `attempt` (0 for the first) failed. */
export function shouldRetry(
  attempt: number,
  failure: RetryFailure,
  request: RetryRequest,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): boolean {
  if (!request.idempotent || request.method !== 'GET') return false;
  if (!RETRYABLE.has(failure.kind)) return false;
  if (attempt >= policy.retries) return false;
  // Asked to wait longer than we are willing to here: the caller (the poller) schedules it instead.
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs) return false;
  return true;
}

/**
 * How long to wait after attempt `attempt` (0 for the first) failed: exponential back-off with jitter
 * (half fixed, half random), never less than the answer's Retry-After. `random` is in [0, 1).
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): number {
  const backoff = doublingDelay(attempt + 1, policy.backoffBaseMs, policy.backoffMaxMs);
  const jittered = backoff / 2 + random * (backoff / 2);
  return Math.round(retryAfterMs === undefined ? jittered : Math.max(jittered, retryAfterMs));
}
