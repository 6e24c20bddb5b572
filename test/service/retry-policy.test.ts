// The retry policy is pure: no network, no timers, no clock. Only idempotent GETs are retried.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, retryDelayMs, shouldRetry, type RetryPolicy } from '../../main/service/retry-policy.js';
import type { ServiceErrorKind } from '../../main/service/errors.js';

const GET = { method: 'GET', idempotent: true } as const;
const policy: RetryPolicy = { retries: 3, backoffBaseMs: 500, backoffMaxMs: 8_000, maxRetryAfterMs: 30_000 };

describe('shouldRetry', () => {
  it('retries a GET after no answer, a 5xx or a 429, up to `retries` extra attempts', () => {
    for (const kind of ['network', 'unavailable', 'rate_limited'] as const) {
      expect([0, 1, 2, 3, 4].map((attempt) => shouldRetry(attempt, { kind }, GET, policy))).toEqual([
        true,
        true,
        true,
        false,
        false,
      ]);
    }
    expect(shouldRetry(0, { kind: 'network' }, GET, { ...policy, retries: 0 })).toBe(false);
  });

  it('never retries what asking again cannot fix', () => {
    const kinds: ServiceErrorKind[] = [
      'authentication',
      'validation',
      'forbidden',
      'not_found',
      'unreadable',
      'unknown_outcome',
    ];
    for (const kind of kinds) expect(shouldRetry(0, { kind }, GET, policy)).toBe(false);
  });

  it('never retries a charge: a POST, or anything not idempotent, goes back to the caller', () => {
    for (const kind of ['network', 'unavailable', 'rate_limited'] as const) {
      expect(shouldRetry(0, { kind }, { method: 'POST', idempotent: false }, policy)).toBe(false);
      expect(shouldRetry(0, { kind }, { method: 'GET', idempotent: false }, policy)).toBe(false);
      expect(shouldRetry(0, { kind }, { method: 'POST', idempotent: true }, policy)).toBe(false);
    }
  });

  it('leaves a Retry-After longer than maxRetryAfterMs to the caller; up to it is waited for', () => {
    expect(shouldRetry(0, { kind: 'rate_limited', retryAfterMs: 30_000 }, GET, policy)).toBe(true);
    expect(shouldRetry(0, { kind: 'rate_limited', retryAfterMs: 30_001 }, GET, policy)).toBe(false);
    expect(shouldRetry(0, { kind: 'unavailable', retryAfterMs: 120_000 }, GET, policy)).toBe(false);
  });

  it('defaults to 3 retries, 500 ms doubling to 8 s, and a 30 s Retry-After at most', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual(policy);
    expect(shouldRetry(2, { kind: 'network' }, GET)).toBe(true);
    expect(shouldRetry(3, { kind: 'network' }, GET)).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('doubles from backoffBaseMs, half fixed and half jitter, capped at backoffMaxMs', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => retryDelayMs(a, undefined, 0, policy))).toEqual([
      250, 500, 1000, 2000, 4000, 4000, 4000,
    ]);
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => retryDelayMs(a, undefined, 0.999999, policy))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(retryDelayMs(1, undefined, 0.5, policy)).toBe(750);
  });

  it('waits at least the Retry-After, and no longer than the back-off when that is longer', () => {
    expect(retryDelayMs(0, 5_000, 0.5, policy)).toBe(5_000);
    expect(retryDelayMs(4, 1_000, 0.5, policy)).toBe(6_000);
    expect(retryDelayMs(0, 0, 0, policy)).toBe(250);
  });

  it('is a whole number of milliseconds, the same for the same inputs', () => {
    const d = retryDelayMs(0, undefined, 0.123456, { ...policy, backoffBaseMs: 333 });
    expect(Number.isInteger(d)).toBe(true);
    expect(retryDelayMs(0, undefined, 0.123456, { ...policy, backoffBaseMs: 333 })).toBe(d);
  });
});
