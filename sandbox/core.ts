// Everything the sandbox's routes and controls share.
import type { SandboxDb } from './store.js';
import { deleteMeta, getMeta, setMeta } from './store.js';
import type { SandboxClock } from './clock.js';
import type { MerchantKeys, ServiceKeyPair } from './keys.js';
import type { Signer } from './signing.js';
import type { CallbackDispatcher } from './callbacks.js';
import type { Collections } from './collections.js';
import { Faults } from './faults.js';
import { heldCurrencies } from './wallets.js';

export class SandboxCore {
  baseUrl = '';
  readonly faults = new Faults();
  rateLimitPerSecond: number;
  /**
   * The payment options request refused without currency and transaction_type (a test control, off by
   * default): the contract shows both and leaves open whether a service requires them.
   */
  strictOptions = false;
  private windows = new Map<string, { start: number; count: number }>();
  private held: Set<string> | undefined;

  constructor(
    readonly db: SandboxDb,
    readonly clock: SandboxClock,
    readonly merchant: MerchantKeys,
    readonly serviceKeys: ServiceKeyPair,
    readonly signer: Signer,
    readonly callbacks: CallbackDispatcher,
    readonly collections: Collections,
    rateLimitPerSecond: number,
  ) {
    this.rateLimitPerSecond = rateLimitPerSecond;
  }

  get callbackUrl(): string | null {
    return getMeta(this.db, 'callback_url') ?? null;
  }

  set callbackUrl(url: string | null) {
    if (url === null || url === '') deleteMeta(this.db, 'callback_url');
    else setMeta(this.db, 'callback_url', url);
  }

  heldCurrencies(): Set<string> {
    this.held ??= heldCurrencies(this.db);
    return this.held;
  }

  /** Runs what the sandbox clock makes due. Never throws into a request. */
  tick(): void {
    try {
      this.collections.tick();
    } catch (e) {
      console.error('sandbox: clock tick failed:', e instanceof Error ? e.message : e);
    }
  }

  /** 0 when allowed, else the seconds to wait (a one-second window per public key). */
  rateLimit(key: string): number {
    if (this.rateLimitPerSecond <= 0) return 0;
    const now = Date.now();
    const w = this.windows.get(key);
    if (!w || now - w.start >= 1000) {
      this.windows.set(key, { start: now, count: 1 });
      return 0;
    }
    w.count += 1;
    return w.count > this.rateLimitPerSecond ? 1 : 0;
  }
}
