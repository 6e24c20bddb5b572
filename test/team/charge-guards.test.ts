// The team's charge guards in the database itself (team migration 12, team.guard_intent through
// createIntent), against a real PostgreSQL with real logins: the repeat-charge question by keyed
// fingerprint, the daily limit over the team's intents of the day, both serialised so that two desks
// at the same instant are judged one after the other, and who may call or read what.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents } from '../../main/team/events.js';
import { TeamFieldError, TeamPermissionError } from '../../main/team/errors.js';
import {
  collectedSince,
  createIntent,
  DailyLimitError,
  RepeatChargeError,
  type IntentGuards,
} from '../../main/team/intents.js';
import { cardFingerprint, teamFingerprintKey } from '../../main/collections/charge/fingerprint.js';
import { event, teamFixture, type TeamFixture } from './fixture.js';

let team: TeamFixture;
let ann: string;
let bob: string;
let finance: string;
let backOffice: string;

beforeAll(async () => {
  team = await teamFixture();
  ann = await team.addOperator('support', 'ann');
  bob = await team.addOperator('support', 'bob');
  finance = await team.addOperator('finance');
  backOffice = await team.addOperator('back_office');
});
afterAll(async () => {
  await team?.close();
});

const key = teamFingerprintKey('sk_test_the_merchants_secret_key');
let refs = 0;
const intent = (amountMinor: number, currency = 'KES') => ({
  merchantReference: `MD-GUARD-${process.pid}-${++refs}`,
  amountMinor,
  currency,
  description: 'Phone order',
});
const startOfToday = () => {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.getTime();
};
const guards = (over: Partial<IntentGuards> = {}): IntentGuards => ({
  fingerprint: null,
  confirmedRepeat: false,
  daily: null,
  ...over,
});

describe('the repeat-charge question', () => {
  it('refuses the same fingerprint within the window, naming who charged it and when; a confirmed repeat, another card or amount passes', async () => {
    const fp = cardFingerprint(key, '4242424242424242', 250_00, 'KES');
    const before = Date.now();
    await createIntent(team.signIn(ann), intent(250_00), guards({ fingerprint: fp }));
    const refused = await createIntent(team.signIn(bob), intent(250_00), guards({ fingerprint: fp })).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(RepeatChargeError);
    expect(refused).toMatchObject({ chargedBy: ann });
    expect((refused as RepeatChargeError).chargedAt).toBeGreaterThanOrEqual(before - 1000);
    expect((refused as RepeatChargeError).chargedAt).toBeLessThanOrEqual(Date.now() + 1000);

    // Nothing of the refused one was created.
    const intents = async (by: string) =>
      Number((await team.owner.query('SELECT count(*) AS n FROM team.intents WHERE created_by = $1', [by])).rows[0].n);
    expect(await intents(bob)).toBe(0);

    await createIntent(team.signIn(bob), intent(250_00), guards({ fingerprint: fp, confirmedRepeat: true }));
    await createIntent(
      team.signIn(bob),
      intent(250_00),
      guards({ fingerprint: cardFingerprint(key, '4000000000000002', 250_00, 'KES') }),
    );
    await createIntent(
      team.signIn(bob),
      intent(251_00),
      guards({ fingerprint: cardFingerprint(key, '4242424242424242', 251_00, 'KES') }),
    );
    expect(await intents(bob)).toBe(3);
    // The newest charge of the card counts: now bob's confirmed repeat.
    await expect(createIntent(team.signIn(ann), intent(250_00), guards({ fingerprint: fp }))).rejects.toMatchObject({
      name: 'RepeatChargeError',
      chargedBy: bob,
    });
  });

  it('two desks at the same instant with the same card and amount: exactly one is refused, every time', async () => {
    const pools = [team.signIn(ann), team.signIn(bob)];
    for (let round = 0; round < 10; round++) {
      const fp = cardFingerprint(key, '5555555555554444', 1_000_00 + round, 'KES');
      const both = await Promise.allSettled(
        pools.map((p) => createIntent(p, intent(1_000_00 + round), guards({ fingerprint: fp }))),
      );
      expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const refused = both.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(RepeatChargeError);
    }
  });

  it('keeps only fingerprints, 32 bytes each, and no operator can read them', async () => {
    await expect(
      createIntent(team.signIn(ann), intent(300_00), guards({ fingerprint: crypto.randomBytes(16) })),
    ).rejects.toBeInstanceOf(TeamFieldError);
    const cols = await team.owner.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = 'team' AND table_name = 'charge_guards' ORDER BY ordinal_position`,
    );
    expect(cols.rows.map((c) => `${c.column_name} ${c.data_type}`)).toEqual([
      'id bigint',
      'fingerprint bytea',
      'merchant_reference text',
      'charged_by name',
      'charged_at timestamp with time zone',
      'confirmed_repeat boolean',
    ]);
    for (const login of [ann, finance, backOffice])
      await expect(team.signIn(login).query('SELECT fingerprint FROM team.charge_guards')).rejects.toMatchObject({
        code: '42501',
      });
  });
});

describe('the daily limit', () => {
  it("refuses an intent that would pass the limit, counting every desk's intents of the day that have not failed", async () => {
    const day = startOfToday();
    const limit = { dayStart: day, maxDailyMinor: 1_000_00 };
    const usd = async () => collectedSince(team.signIn(finance), 'USD', day);
    expect(await usd()).toBe(0);
    await createIntent(team.signIn(ann), intent(400_00, 'USD'), guards({ daily: limit }));
    const second = intent(500_00, 'USD');
    await createIntent(team.signIn(bob), second, guards({ daily: limit }));
    expect(await usd()).toBe(900_00);

    const refused = await createIntent(team.signIn(ann), intent(100_01, 'USD'), guards({ daily: limit })).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(DailyLimitError);
    expect(refused).toMatchObject({ currency: 'USD', collectedMinor: 900_00, maxDailyMinor: 1_000_00 });
    // Up to the limit exactly passes; another currency has its own total.
    await createIntent(team.signIn(ann), intent(100_00, 'USD'), guards({ daily: limit }));
    await createIntent(
      team.signIn(ann),
      intent(100_00, 'EUR'),
      guards({ daily: { dayStart: day, maxDailyMinor: 100_00 } }),
    );
    expect(await usd()).toBe(1_000_00);

    // bob's 500.00 failed (the service said so): it no longer counts, and the room is there again.
    await appendEvents(team.signIn(backOffice), [
      event({
        merchantReference: second.merchantReference,
        source: 'callback',
        kind: 'outcome',
        status: 'FAILED',
        currency: 'USD',
        amountMinor: 500_00,
        signature: 'verified',
      }),
    ]);
    expect(await usd()).toBe(500_00);
    await createIntent(team.signIn(bob), intent(500_00, 'USD'), guards({ daily: limit }));
  });

  it('two desks at the same instant, each amount fitting alone: exactly one passes', async () => {
    const day = startOfToday();
    const limit = { dayStart: day, maxDailyMinor: 1_000 };
    const pools = [team.signIn(ann), team.signIn(bob)];
    await createIntent(pools[0]!, intent(600, 'UGX'), guards({ daily: limit }));
    const both = await Promise.allSettled(
      pools.map((p) => createIntent(p, intent(400, 'UGX'), guards({ daily: limit }))),
    );
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((both.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(DailyLimitError);
  });

  it('takes only a day boundary that is the start of a day including now', async () => {
    for (const dayStart of [Date.now() - 27 * 3_600_000, Date.now() + 3_600_000])
      await expect(
        createIntent(team.signIn(ann), intent(1_00, 'TZS'), guards({ daily: { dayStart, maxDailyMinor: 10_00 } })),
      ).rejects.toMatchObject({ name: 'TeamFieldError', field: 'day_start' });
  });
});

describe('who may', () => {
  it('only support (and admins) may pass the guards; every group may read the team total', async () => {
    const fp = cardFingerprint(key, '4000000000003220', 7_00, 'KES');
    for (const login of [finance, backOffice])
      await expect(createIntent(team.signIn(login), intent(7_00), guards({ fingerprint: fp }))).rejects.toBeInstanceOf(
        TeamPermissionError,
      );
    for (const login of [ann, finance, backOffice])
      expect(await collectedSince(team.signIn(login), 'NGN', startOfToday())).toBe(0);
  });
});
