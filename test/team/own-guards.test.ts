// The guard fingerprints a desk keeps of its own charges (team/own-guards.ts): for the repeat window and
// no longer, each a copy of what the charge had, zeroed when forgotten, so that after a failover only the
// guards that can still ask go back with their intents.
import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createOwnGuards, OWN_GUARD_MS, type OwnGuards } from '../../main/team/own-guards.js';

let now = Date.UTC(2026, 11, 2, 9);
const clock = { now: () => now };
let guards: OwnGuards;
afterEach(() => guards?.clear());

const guard = (ref: string, fingerprint = crypto.randomBytes(32)) => ({
  merchantReference: ref,
  fingerprint,
  chargedAt: now - 2_000,
  confirmedRepeat: false,
});

describe("a desk's own guard fingerprints", () => {
  it('are kept for the repeat window and a minute, then forgotten and zeroed', () => {
    guards = createOwnGuards(clock);
    const given = crypto.randomBytes(32);
    guards.keep(guard('MD-1', given));
    now += 60_000;
    guards.keep(guard('MD-2'));
    const kept = guards.of('MD-1')!;
    expect(kept.fingerprint.equals(given)).toBe(true);
    expect(kept.fingerprint).not.toBe(given); // a copy: what the charge holds is its own to wipe
    expect(guards.all().map((g) => g.merchantReference)).toEqual(['MD-1', 'MD-2']);

    now += OWN_GUARD_MS - 60_000;
    expect(guards.of('MD-1')).toBeNull();
    expect(kept.fingerprint.equals(Buffer.alloc(32))).toBe(true);
    expect(guards.all().map((g) => g.merchantReference)).toEqual(['MD-2']);
  });

  it('are all zeroed when the session ends', () => {
    guards = createOwnGuards(clock);
    guards.keep(guard('MD-3'));
    const kept = guards.of('MD-3')!;
    guards.clear();
    expect(guards.all()).toEqual([]);
    expect(kept.fingerprint.equals(Buffer.alloc(32))).toBe(true);
  });
});
