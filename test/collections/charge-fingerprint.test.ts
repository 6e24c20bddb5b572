// A team desk's charge carries the card's keyed fingerprint (fingerprint.ts) to the team's repeat question.
// It is card data in all but name (the same card and amount always give the same bytes), so it is zeroed
// when the charge is done with it, like the card fields: after the answer, after a confirmed or cancelled
// "Charge this card again?", and when the charge stops before anything is sent. Real sandbox over HTTP,
// real cipher and SQLite; the team seam records what it was given (the team database is not what is under
// test here: team-charge-guards.test.ts holds the question itself on a real PostgreSQL).
import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { TeamChargeSeam, TeamIntentGuards } from '../../main/collections/charge/types.js';
import { CARDS, cardForm, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A team seam that asks "again?" for a fingerprint it has recorded, unless confirmed; keeps what it was given. */
function recordingTeam(): { seam: TeamChargeSeam; given: { fingerprint: Buffer; asGiven: string }[] } {
  const given: { fingerprint: Buffer; asGiven: string }[] = [];
  const seen = new Set<string>();
  const seam: TeamChargeSeam = {
    recordIntent(_intent, guards: TeamIntentGuards) {
      const fp = guards.fingerprint!;
      const hex = fp.toString('hex');
      given.push({ fingerprint: fp, asGiven: hex });
      if (seen.has(hex) && !guards.confirmedRepeat)
        return Promise.resolve({ kind: 'repeat', chargedBy: 'kofi', chargedAt: Date.now() - 60_000 });
      seen.add(hex);
      return Promise.resolve({ kind: 'recorded' });
    },
    collectedSince: () => Promise.resolve(0),
    claim: () => Promise.resolve(),
    outboxAdded: () => undefined,
  };
  return { seam, given };
}

const zeroed = (b: Buffer) => b.every((x) => x === 0);

describe("a team charge's card fingerprint", () => {
  it('is zeroed once the charge is answered, kept while the agent is asked, zeroed after the answer', async () => {
    const team = recordingTeam();
    const key = crypto.randomBytes(32);
    h = await startHarness({ deps: { team: () => team.seam, getFingerprintKey: () => key } });

    const first = await h.charges.charge(cardForm(CARDS.approve));
    expect(first.outcome.kind).toBe('completed');
    expect(team.given).toHaveLength(1);
    expect(zeroed(Buffer.from(team.given[0]!.asGiven, 'hex'))).toBe(false);
    expect(zeroed(team.given[0]!.fingerprint)).toBe(true);

    // The same card and amount again: asked first; the held charge still has what the confirmation sends.
    const again = await h.charges.charge(cardForm(CARDS.approve));
    expect(again.outcome.kind).toBe('needs_confirmation');
    const held = team.given[1]!;
    expect(held.fingerprint.toString('hex')).toBe(held.asGiven);
    const token = again.outcome.kind === 'needs_confirmation' ? again.outcome.token : '';
    const confirmed = await h.charges.confirmRepeat(token);
    expect(confirmed.outcome.kind).toBe('completed');
    expect(team.given[2]!.asGiven).toBe(held.asGiven);
    expect(zeroed(team.given[2]!.fingerprint)).toBe(true);

    // Asked again and the agent says no: zeroed too.
    const third = await h.charges.charge(cardForm(CARDS.approve));
    expect(third.outcome.kind).toBe('needs_confirmation');
    h.charges.cancelRepeat(third.outcome.kind === 'needs_confirmation' ? third.outcome.token : '');
    expect(zeroed(team.given[3]!.fingerprint)).toBe(true);
  });
});
