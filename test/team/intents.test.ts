import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceTakenError, TeamFieldError } from '../../main/team/errors.js';
import { createIntent } from '../../main/team/intents.js';
import { teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
let alice: string;
let bob: string;

beforeAll(async () => {
  team = await teamFixture();
  alice = await team.addOperator('support', 'alice');
  bob = await team.addOperator('support', 'bob');
});
afterAll(async () => {
  await team?.close();
});

const intent = (merchantReference: string) => ({
  merchantReference,
  amountMinor: 250_000,
  currency: 'NGN',
  description: 'Phone order 5512',
  details: { customerName: 'Ada', cardLast4: '4242' },
});

describe('createIntent', () => {
  it('commits the intent and its event together, recorded as the signed-in login', async () => {
    const created = await createIntent(team.signIn(alice), intent('MD-INTENT-1'));
    expect(created.createdBy).toBe(alice);
    const rows = await team.owner.query(
      `SELECT i.created_by, e.seq, e.source, e.kind, e.status, e.amount_minor, e.actor, e.payload
       FROM team.intents i JOIN team.events e ON e.merchant_reference = i.merchant_reference WHERE i.merchant_reference = 'MD-INTENT-1'`,
    );
    expect(rows.rows).toEqual([
      {
        created_by: alice,
        seq: String(created.seq),
        source: 'intent',
        kind: 'intent',
        status: 'INTENT',
        amount_minor: '250000',
        actor: alice,
        payload: JSON.stringify({ description: 'Phone order 5512', customerName: 'Ada', cardLast4: '4242' }),
      },
    ]);
  });

  it('two desktops racing for one reference: exactly one intent, the other told who holds it', async () => {
    for (let round = 0; round < 5; round++) {
      const ref = `MD-RACE-${round}`;
      // Two logins on two connections, both sending before either commits.
      const results = await Promise.allSettled([
        createIntent(team.signIn(alice), intent(ref)),
        createIntent(team.signIn(bob), intent(ref)),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      const err = lost[0]!.reason as ReferenceTakenError;
      expect(err).toBeInstanceOf(ReferenceTakenError);
      expect(err.field).toBe('merchant_reference');
      const winner = (won[0] as PromiseFulfilledResult<{ createdBy: string }>).value.createdBy;
      expect(err.createdBy).toBe(winner);
      expect(err.message).toContain(`"${ref}" already has an intent (created by ${winner}`);

      // The database itself holds one intent and one intent event for the reference.
      const counts = await team.owner.query(
        `SELECT (SELECT count(*) FROM team.intents WHERE merchant_reference = $1)::int AS intents,
                (SELECT count(*) FROM team.events WHERE merchant_reference = $1)::int AS events`,
        [ref],
      );
      expect(counts.rows[0]).toEqual({ intents: 1, events: 1 });
    }
  });

  it('names the field of a bad intent before sending anything', async () => {
    const pool = team.signIn(alice);
    await expect(createIntent(pool, { ...intent('MD-BAD-1'), amountMinor: 12.5 })).rejects.toThrow(TeamFieldError);
    await expect(createIntent(pool, { ...intent('MD-BAD-1'), amountMinor: 12.5 })).rejects.toThrow(/^amountMinor: /);
    await expect(createIntent(pool, { ...intent('MD-BAD-1'), currency: 'ngn' })).rejects.toThrow(
      /^currency: must be three capital letters/,
    );
    await expect(createIntent(pool, { ...intent('') })).rejects.toThrow(/^merchantReference: /);
  });
});
