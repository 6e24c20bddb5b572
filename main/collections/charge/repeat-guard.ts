// The repeat-charge guard of a solo desk: the same card, amount and currency charged again within a few
// minutes needs the agent's confirmation. The card is known only by a keyed hash (fingerprint.ts; key
// random per process, in memory only), and a charge waiting for confirmation is held as its
// PreparedCharge: the cipher, never the card. A team desk asks the team database instead (team
// migration 12) and holds here only the charges waiting for confirmation.
import crypto from 'node:crypto';
import type { Clock } from '../../clock.js';
import { cardFingerprint } from './fingerprint.js';
import type { PreparedCharge } from './types.js';

const REPEAT_WINDOW_MS = 5 * 60_000;
const CONFIRM_TTL_MS = 2 * 60_000;

export interface RepeatGuard {
  /**
   * Claims the guard for this card, amount and currency; `repeat` when it was charged within the window.
   * Claimed before any await, so two identical charges at once cannot both pass it.
   */
  claim(cardNumber: string, amountMinor: number, currency: string): { key: string; repeat: boolean };
  /** Gives a claim back: nothing was saved or sent. */
  release(key: string): void;
  /** Holds a repeat charge for confirmation; its token, valid for a couple of minutes. */
  hold(charge: PreparedCharge): { token: string; expires: number };
  /**
   * The held charge of a token (and counts it as charged now, solo); null when unknown or expired. The
   * taker zeroes its fingerprint when done (new-charge.ts spent).
   */
  take(token: string): PreparedCharge | null;
  /** Forgets a held charge (its fingerprint zeroed). */
  cancel(token: string): void;
  /** Stops timers and forgets everything held. */
  dispose(): void;
}

interface Held {
  charge: PreparedCharge;
  expires: number;
  timer: NodeJS.Timeout;
}

export function createRepeatGuard(clock: Clock, windowMs = REPEAT_WINDOW_MS): RepeatGuard {
  const guardKey = crypto.randomBytes(32);
  const recent = new Map<string, number>();
  const held = new Map<string, Held>();

  const keyFor = (cardNumber: string, amountMinor: number, currency: string): string =>
    cardFingerprint(guardKey, cardNumber, amountMinor, currency).toString('hex');

  function forget(token: string): Held | undefined {
    const h = held.get(token);
    if (!h) return undefined;
    clearTimeout(h.timer);
    held.delete(token);
    return h;
  }

  /** A held charge no one will send: its card fingerprint is zeroed (the cipher is a string, let go). */
  function cancel(token: string): void {
    forget(token)?.charge.fingerprint?.fill(0);
  }

  return {
    claim(cardNumber, amountMinor, currency) {
      const now = clock.now();
      for (const [k, t] of recent) if (now - t > windowMs) recent.delete(k);
      const key = keyFor(cardNumber, amountMinor, currency);
      const repeat = recent.has(key);
      if (!repeat) recent.set(key, now);
      return { key, repeat };
    },
    release(key) {
      recent.delete(key);
    },
    hold(charge) {
      const token = crypto.randomBytes(16).toString('hex');
      const timer = setTimeout(() => cancel(token), CONFIRM_TTL_MS);
      timer.unref();
      const expires = clock.now() + CONFIRM_TTL_MS;
      held.set(token, { charge, expires, timer });
      return { token, expires };
    },
    take(token) {
      const h = forget(token);
      if (!h) return null;
      if (h.expires <= clock.now()) {
        h.charge.fingerprint?.fill(0);
        return null;
      }
      if (h.charge.guardKey) recent.set(h.charge.guardKey, clock.now());
      return h.charge;
    },
    cancel,
    dispose() {
      for (const t of [...held.keys()]) cancel(t);
      recent.clear();
    },
  };
}
