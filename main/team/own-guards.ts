// The guard fingerprints of this desk's own charges, kept in memory for the repeat window only, so that a
// record which went back in time (an asynchronous failover, a restore from backup) gets them back with
// the intents this desk puts back (team migration 20; sync/rollback-restore.ts). Without them a card
// charged in the lost tail could be charged again at another desk within minutes, unasked (issue 38).
//
// Why this desk, and why memory:
// - Nobody else can give them back. The team database lost them; no operator may read team.charge_guards;
//   the fingerprint cannot be made again (the card was wiped once encrypted, and what is kept of it, brand
//   and last four, is not the card). The desk that charged computed it and is the one witness.
// - Never on disk. The fingerprint is an HMAC of the card number (with amount and currency) under a key
//   derived from the merchant's secret key, which this desk's keychain holds, and its SQLite keeps the
//   card's last four beside the amount: with the file and the keychain, the few unknown digits (the Luhn
//   digit fixes one) are found by trying them. In the team database it is safe because the key is not
//   there; here it would be a card number at rest. In memory it adds nothing to what the process already
//   holds while it charges (the key, and for a moment the card), and it is zeroed when its window ends.
// - For the window only: team.repeat_window() (five minutes), plus a minute for the clocks. An older guard
//   would ask nothing, and the database would prune it.
// What it does not cover: a desk that stopped (a crash, a restart, a kill) between its charge and its
// restore forgets them, so a failover within minutes of such a stop loses those guards (a double fault).
// And a charge at another desk before this one has put its intent back is judged without it.
import type { Clock } from '../clock.js';

/** team.repeat_window() (migration 12) and a minute for the desk's and the database's clocks. */
export const OWN_GUARD_MS = 6 * 60_000;

/** One of this desk's guarded intents, as team.restore_events takes its guard back. */
export interface OwnGuard {
  merchantReference: string;
  /** The 32 bytes team.guard_intent got (a copy, zeroed when forgotten). */
  fingerprint: Buffer;
  /** When the team database created the intent (its clock, ms): when the question says it was charged. */
  chargedAt: number;
  confirmedRepeat: boolean;
}

export interface OwnGuards {
  /** This desk's intent was recorded under its guard: keep the fingerprint for the window. */
  keep(g: OwnGuard): void;
  /** The guard of a reference still within the window, or null. */
  of(reference: string): OwnGuard | null;
  /** Every guard still within the window. */
  all(): OwnGuard[];
  /** Forgets (zeroes) every one: the desk closes. */
  clear(): void;
}

export function createOwnGuards(clock: Clock, keepMs = OWN_GUARD_MS): OwnGuards {
  const kept = new Map<string, { guard: OwnGuard; until: number; timer: NodeJS.Timeout }>();
  const forget = (reference: string) => {
    const k = kept.get(reference);
    if (!k) return;
    clearTimeout(k.timer);
    k.guard.fingerprint.fill(0);
    kept.delete(reference);
  };
  // The desk's clock decides (a test moves it); the timer zeroes what nobody asks for again.
  const live = (reference: string) => {
    const k = kept.get(reference);
    if (k && clock.now() >= k.until) forget(reference);
    return kept.get(reference)?.guard ?? null;
  };
  return {
    keep(g) {
      forget(g.merchantReference);
      const guard = { ...g, fingerprint: Buffer.from(g.fingerprint) };
      const timer = setTimeout(() => forget(g.merchantReference), keepMs);
      timer.unref();
      kept.set(g.merchantReference, { guard, until: clock.now() + keepMs, timer });
    },
    of: live,
    all: () => [...kept.keys()].map(live).filter((g): g is OwnGuard => g !== null),
    clear() {
      for (const r of [...kept.keys()]) forget(r);
    },
  };
}
