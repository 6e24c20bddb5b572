// The test controls, in process. /__sandbox/... maps onto these one to one.
import type { SandboxCore } from './core.js';
import { ApiError } from './envelope.js';
import { iso } from './clock.js';
import { CALLBACK_MODES } from './callbacks.js';
import type {
  ActiveFault,
  CallbackLogEntry,
  CallbackMode,
  CollectionView,
  CompleteOutcome,
  FaultSpec,
  FinalStatus,
  SandboxControls,
  SandboxStateView,
} from './types.js';

const OUTCOMES: CompleteOutcome[] = ['approve', 'decline', 'insufficient_funds', 'cancel'];
const FINALS: FinalStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

export class Controls implements SandboxControls {
  constructor(private readonly core: SandboxCore) {}

  state(): SandboxStateView {
    const now = this.core.clock.now();
    const { pending, held } = this.core.callbacks.pendingCount();
    return {
      now: iso(now),
      now_ms: now,
      callback_url: this.core.callbackUrl,
      collections: this.core.collections.count(),
      faults: this.core.faults.view(),
      callback_mode: this.core.callbacks.mode,
      callback_delay_ms: this.core.callbacks.delayMs,
      pending_callbacks: pending,
      held_callbacks: held,
      rate_limit_per_s: this.core.rateLimitPerSecond,
      strict_options: this.core.strictOptions,
    };
  }

  config(cfg: { callback_url?: string | null; rate_limit_per_s?: number; strict_options?: boolean }): SandboxStateView {
    if (typeof cfg !== 'object' || cfg === null)
      throw new ApiError(400, 'send a JSON object, e.g. {"callback_url": "http://127.0.0.1:9000/cb"}');
    if (cfg.callback_url !== undefined) {
      if (cfg.callback_url !== null) {
        let u: URL | undefined;
        try {
          u = new URL(String(cfg.callback_url));
        } catch {
          u = undefined;
        }
        if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
          throw new ApiError(422, 'callback_url must be an http or https URL', { field: 'callback_url' });
        }
      }
      this.core.callbackUrl = cfg.callback_url;
      this.core.callbacks.kick();
    }
    if (cfg.rate_limit_per_s !== undefined) {
      if (!Number.isInteger(cfg.rate_limit_per_s) || cfg.rate_limit_per_s < 0) {
        throw new ApiError(422, 'rate_limit_per_s must be a whole number (0 = no limit)', {
          field: 'rate_limit_per_s',
        });
      }
      this.core.rateLimitPerSecond = cfg.rate_limit_per_s;
    }
    if (cfg.strict_options !== undefined) {
      if (typeof cfg.strict_options !== 'boolean')
        throw new ApiError(422, 'strict_options must be true or false', { field: 'strict_options' });
      this.core.strictOptions = cfg.strict_options;
    }
    return this.state();
  }

  async advanceClock(ms: number): Promise<SandboxStateView> {
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) {
      throw new ApiError(422, 'ms must be a whole, non-negative number of milliseconds', { field: 'ms' });
    }
    this.core.clock.advance(ms);
    this.core.tick();
    return this.state();
  }

  addFault(f: FaultSpec): ActiveFault {
    if (typeof f !== 'object' || f === null)
      throw new ApiError(400, 'send a JSON object, e.g. {"route": "balances", "kind": "500"}');
    return this.core.faults.add(f);
  }

  clearFaults(): void {
    this.core.faults.clear();
  }

  setCallbackMode(mode: CallbackMode, delayMs?: number): void {
    if (!CALLBACK_MODES.includes(mode)) {
      throw new ApiError(422, `mode must be one of ${CALLBACK_MODES.join(', ')}`, { field: 'mode' });
    }
    if (delayMs !== undefined && (!Number.isInteger(delayMs) || delayMs < 0)) {
      throw new ApiError(422, 'delay_ms must be a whole number of milliseconds', { field: 'delay_ms' });
    }
    this.core.callbacks.mode = mode;
    if (delayMs !== undefined) this.core.callbacks.delayMs = delayMs;
  }

  releaseCallbacks(): Promise<number> {
    return this.core.callbacks.release();
  }

  resendCallback(merchantReference: string): void {
    if (typeof merchantReference !== 'string' || merchantReference === '') {
      throw new ApiError(400, 'merchant_reference is required', { field: 'merchant_reference' });
    }
    const c = this.core.collections.mustGet(merchantReference);
    if (c.status === 'PENDING') {
      throw new ApiError(409, `collection ${c.merchant_reference} is still PENDING: no callback yet`, {
        field: 'merchant_reference',
      });
    }
    this.core.callbacks.enqueue(this.core.collections.callbackBody(c));
  }

  callbackLog(): CallbackLogEntry[] {
    return this.core.callbacks.log();
  }

  collection(merchantReference: string): CollectionView {
    this.core.tick();
    return this.core.collections.view(this.core.collections.mustGet(merchantReference), this.core.baseUrl);
  }

  async complete(merchantReference: string, outcome: CompleteOutcome): Promise<{ redirect_url: string }> {
    if (!OUTCOMES.includes(outcome)) {
      throw new ApiError(422, `outcome must be one of ${OUTCOMES.join(', ')}`, { field: 'outcome' });
    }
    this.core.tick();
    const c = this.core.collections.finish(merchantReference, outcome, 'control');
    return { redirect_url: this.core.collections.redirectUrl(c) };
  }

  async flip(merchantReference: string, status: FinalStatus): Promise<CollectionView> {
    if (!FINALS.includes(status)) {
      throw new ApiError(422, `status must be one of ${FINALS.join(', ')}`, { field: 'status' });
    }
    this.core.tick();
    const c = this.core.collections.flip(merchantReference, status, 'control');
    return this.core.collections.view(c, this.core.baseUrl);
  }

  callbacksSettled(timeoutMs?: number): Promise<void> {
    return this.core.callbacks.settled(timeoutMs);
  }
}
