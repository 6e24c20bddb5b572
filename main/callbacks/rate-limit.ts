// A token bucket per remote address for the callback receiver: a source over its rate gets 429 with
// Retry-After before its body is read, and costs only a counter.
//
// Defaults: loopback is the app's own sandbox (and the benchmark, which delivers 3,000+ callbacks a
// second) and any local process could write the database anyway, so its limit is only a backstop far
// above that. A remote source is the payment service: it sends one callback per transaction plus retries;
// 200 a second with bursts of 1,000 is far above a merchant's real volume yet stops a flood from one host.
export interface RateLimitOptions {
  perSecond?: number;
  burst?: number;
  loopbackPerSecond?: number;
  loopbackBurst?: number;
  /** Most addresses tracked; beyond it, the least recently seen is forgotten (they come back with a full bucket). */
  maxSources?: number;
}

export const DEFAULT_RATE_LIMIT: Required<RateLimitOptions> = {
  perSecond: 200,
  burst: 1_000,
  loopbackPerSecond: 100_000,
  loopbackBurst: 100_000,
  maxSources: 10_000,
};

function isLoopback(address: string): boolean {
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || a.startsWith('127.');
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly o: Required<RateLimitOptions>;
  private readonly buckets = new Map<string, Bucket>();

  constructor(opts: RateLimitOptions = {}) {
    this.o = { ...DEFAULT_RATE_LIMIT, ...opts };
  }

  /** Takes one token for `source`: 0 if allowed, else how many ms until one is available. */
  take(source: string, now: number): number {
    const loop = isLoopback(source);
    const rate = loop ? this.o.loopbackPerSecond : this.o.perSecond;
    const burst = loop ? this.o.loopbackBurst : this.o.burst;
    let b = this.buckets.get(source);
    if (!b) {
      if (this.buckets.size >= this.o.maxSources) this.forgetIdlest();
      b = { tokens: burst, at: now };
    } else {
      b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
      b.at = now;
      this.buckets.delete(source); // re-inserted below: the map stays in least-recently-used order
    }
    this.buckets.set(source, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / rate) * 1000);
  }

  private forgetIdlest(): void {
    const oldest = this.buckets.keys().next().value;
    if (oldest !== undefined) this.buckets.delete(oldest);
  }
}
