// team.restore_events (team migration 15): how a witness puts back what the team record lost, as the
// database decides it. Exactly once by event key; the restorer is the actor and the database stamps the
// restoration into the evidence; a login restores only what its role may write or what carries the
// service's signatures; nobody else can write that stamp; an intent comes back with its one-charge row.
// A forged "signed" event put back by a support login settles nothing on any desk (each checks it).
import crypto from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents } from '../../main/team/events.js';
import { restoreEvents, type RestoreRow } from '../../main/store/pg/rollback.js';
import { signedCallback } from '../serve/harness.js';
import { teamFixture, type TeamFixture } from './fixture.js';
import { openDesk, type Desk } from './sync-desk.js';
import { createIntent, RepeatChargeError } from '../../main/team/intents.js';
import { cardFingerprint, teamFingerprintKey } from '../../main/collections/charge/fingerprint.js';

let team: TeamFixture;
let support: pg.Pool;
let finance: pg.Pool;
let supportLogin: string;
const desks: Desk[] = [];
const signingKey = crypto.randomBytes(24).toString('hex');

beforeAll(async () => {
  team = await teamFixture();
  supportLogin = await team.addOperator('support');
  support = team.signIn(supportLogin);
  finance = team.signIn(await team.addOperator('finance'));
});
afterAll(async () => {
  for (const d of desks) await d.close();
  await team?.close();
});

let n = 0;
/** A callback as serve writes it: the body and the signature headers as received. */
function callback(over: Partial<RestoreRow> = {}, key = signingKey): RestoreRow {
  const ref = `RESTORE-${process.pid}-${++n}`;
  const cb = signedCallback(key, { ref, amount: 1500.5 });
  return {
    event_key: `callback:${ref}:${n}`,
    merchant_reference: ref,
    internal_reference: `INT-${ref}`,
    source: 'callback',
    kind: 'outcome',
    status: 'COMPLETED',
    amount_minor: '150050',
    currency: 'NGN',
    signature: 'verified',
    payload: cb.body,
    note: null,
    payment_url: null,
    status_message: 'Approved',
    occurred_at: new Date(Date.UTC(2026, 10, 20, 9)).toISOString(),
    evidence: JSON.stringify({ hmac: cb.headers['hmac-signature'], rsa: null }),
    lost_seq: 42,
    lost_recorded_at: Date.UTC(2026, 10, 20, 9, 0, 1),
    lost_actor: 'serve_login',
    ...over,
  };
}

const row = async (key: string) =>
  (
    await team.owner.query<{ seq: string; actor: string; evidence: string; occurred_at: Date }>(
      'SELECT seq, actor, evidence, occurred_at FROM team.events WHERE event_key = $1',
      [key],
    )
  ).rows;

describe('team.restore_events', () => {
  it('puts a signed callback back once, by any operator, stamped with who restored it and what it was', async () => {
    const cb = callback();
    const before = Date.now();
    const [first] = await restoreEvents(support, [cb]);
    expect(first).toMatchObject({ event_key: cb.event_key, outcome: 'restored', reason: null });
    const [again] = await restoreEvents(finance, [cb]);
    expect(again).toMatchObject({ event_key: cb.event_key, outcome: 'present', seq: null });
    const rows = await row(cb.event_key);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actor).toBe(supportLogin);
    // The original receipt time is the event's; the witness's claims and the database's stamp are evidence.
    expect(rows[0]!.occurred_at.getTime()).toBe(Date.UTC(2026, 10, 20, 9));
    const evidence = JSON.parse(rows[0]!.evidence) as Record<string, unknown> & { restored: Record<string, unknown> };
    expect(evidence.hmac).toBe(JSON.parse(cb.evidence!).hmac);
    expect(evidence.restored).toMatchObject({
      by: supportLogin,
      seq: 42,
      recordedAt: cb.lost_recorded_at,
      actor: 'serve_login',
    });
    expect(evidence.restored.at).toBeGreaterThanOrEqual(before - 5_000);
  });

  it('refuses what the restorer may not write and nothing proves: no signatures, or an unsigned event of another role', async () => {
    const bare = callback({ evidence: null });
    const initiate: RestoreRow = {
      ...callback(),
      event_key: `initiate:${++n}`,
      source: 'initiate',
      kind: 'initialize_accepted',
      status: 'PENDING',
      payload: null,
      evidence: null,
    };
    const out = await restoreEvents(finance, [bare, initiate]);
    expect(out).toEqual([
      {
        event_key: bare.event_key,
        seq: null,
        outcome: 'refused',
        reason: expect.stringMatching(
          /may not write callback events, and this one carries no signature of the service/,
        ),
      },
      {
        event_key: initiate.event_key,
        seq: null,
        outcome: 'refused',
        reason: expect.stringMatching(/may not write initiate events/),
      },
    ]);
    // A support login may write its charge's events anyway: put back as its own.
    expect((await restoreEvents(support, [initiate]))[0]).toMatchObject({ outcome: 'restored' });
    expect(await row(bare.event_key)).toHaveLength(0);
  });

  it('nobody but the function writes the restoration stamp', async () => {
    await expect(
      appendEvents(support, [
        {
          eventKey: `redirect:${++n}`,
          merchantReference: `RESTORE-${n}`,
          source: 'redirect',
          kind: 'outcome',
          status: 'COMPLETED',
          signature: 'verified',
          evidence: JSON.stringify({ query: '?a=1', restored: { by: 'someone' } }),
          occurredAt: Date.now(),
        },
      ]),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/evidence.restored is written by team.restore_events only/),
    });
  });

  it('an intent comes back with its one-charge row; a reference taken meanwhile by a newer intent keeps that one', async () => {
    const ref = `RESTORE-INTENT-${process.pid}-${++n}`;
    const intent: RestoreRow = {
      ...callback(),
      event_key: `intent:${ref}`,
      merchant_reference: ref,
      internal_reference: null,
      source: 'intent',
      kind: 'intent',
      status: 'INTENT',
      payload: JSON.stringify({ description: 'Phone order' }),
      evidence: null,
    };
    expect((await restoreEvents(support, [intent]))[0]).toMatchObject({ outcome: 'restored' });
    const it = await team.owner.query(
      'SELECT description, created_by FROM team.intents WHERE merchant_reference = $1',
      [ref],
    );
    expect(it.rows).toEqual([{ description: 'Phone order', created_by: supportLogin }]);
    // The same reference, another key (a newer intent holds the reference): refused, the newer one stands.
    const other = { ...intent, event_key: `intent-old:${ref}` };
    expect((await restoreEvents(support, [other]))[0]).toMatchObject({
      outcome: 'refused',
      reason: expect.stringMatching(/has a newer intent/),
    });
  });

  it('a forged callback put back by a support login settles nothing on a desk that checks it', async () => {
    const forged = callback({}, 'not-the-signing-key');
    expect((await restoreEvents(support, [forged]))[0]).toMatchObject({ outcome: 'restored' });
    const desk = openDesk(team.signIn(await team.addOperator('back_office')), {
      evidenceKeys: () => ({ signingKey, servicePublicKey: null }),
    });
    desks.push(desk);
    await desk.sync.pullNow();
    const ev = desk.db
      .prepare('SELECT signature, note FROM collection_events WHERE dedupe_key = ?')
      .get(forged.event_key) as { signature: string; note: string };
    expect(ev.signature).toBe('invalid');
    expect(ev.note).toMatch(/not verified by this desk/);
  });

  describe('an intent put back with its guard (migration 20)', () => {
    const key = teamFingerprintKey('sk_test_the_merchants_secret_key');
    const fingerprintOf = (amountMinor: number) => cardFingerprint(key, '4242424242424242', amountMinor, 'NGN');
    /** An intent of the lost tail as its desk puts it back: the row, with the guard only that desk kept. */
    function lostIntent(amountMinor: number, chargedAt: number, fp = fingerprintOf(amountMinor)): RestoreRow {
      const ref = `RESTORE-GUARD-${process.pid}-${++n}`;
      return {
        ...callback(),
        event_key: `intent:${ref}`,
        merchant_reference: ref,
        internal_reference: null,
        source: 'intent',
        kind: 'intent',
        status: 'INTENT',
        amount_minor: String(amountMinor),
        payload: JSON.stringify({ description: 'Phone order' }),
        evidence: null,
        guard: { fingerprint: fp.toString('hex'), charged_at: chargedAt, confirmed_repeat: false },
      };
    }
    const chargeAgain = (amountMinor: number) =>
      createIntent(
        team.signIn(supportLogin),
        { merchantReference: `RESTORE-AGAIN-${process.pid}-${++n}`, amountMinor, currency: 'NGN', description: '' },
        { fingerprint: fingerprintOf(amountMinor), confirmedRepeat: false, daily: null },
      ).catch((e: unknown) => e);
    const guardsOf = async (ref: string) =>
      (
        await team.owner.query<{ charged_by: string; charged_at: Date }>(
          'SELECT charged_by, charged_at FROM team.charge_guards WHERE merchant_reference = $1',
          [ref],
        )
      ).rows;

    it('asks about the card again, naming who charged it and when it was charged, not when it came back', async () => {
      const chargedAt = Date.now() - 90_000;
      const lost = lostIntent(7_001_00, chargedAt);
      expect((await restoreEvents(support, [lost]))[0]).toMatchObject({ outcome: 'restored' });
      const refused = await chargeAgain(7_001_00);
      expect(refused).toBeInstanceOf(RepeatChargeError);
      expect(refused).toMatchObject({ chargedBy: supportLogin, chargedAt });
      // Put back again (a second witness, a second look): the one guard stands.
      expect((await restoreEvents(support, [lost]))[0]).toMatchObject({ outcome: 'present' });
      expect(await guardsOf(lost.merchant_reference)).toHaveLength(1);
    });

    it('an intent another desk put back without it (present) gets its guard from the desk that charged', async () => {
      const lost = lostIntent(7_002_00, Date.now() - 30_000);
      const { guard, ...bare } = lost;
      expect((await restoreEvents(support, [bare]))[0]).toMatchObject({ outcome: 'restored' });
      expect(await guardsOf(lost.merchant_reference)).toHaveLength(0); // nothing to ask by: the gap this closes
      expect(guard).toBeDefined();
      expect((await restoreEvents(support, [lost]))[0]).toMatchObject({ outcome: 'present' });
      expect(await guardsOf(lost.merchant_reference)).toEqual([
        { charged_by: supportLogin, charged_at: new Date(guard!.charged_at) },
      ]);
      expect(await chargeAgain(7_002_00)).toMatchObject({ name: 'RepeatChargeError', chargedAt: guard!.charged_at });
    });

    it('past the repeat window nothing is kept; a time to come is taken as now', async () => {
      const old = lostIntent(7_003_00, Date.now() - 6 * 60_000);
      const later = lostIntent(7_004_00, Date.now() + 3_600_000);
      expect((await restoreEvents(support, [old, later])).map((r) => r.outcome)).toEqual(['restored', 'restored']);
      expect(await guardsOf(old.merchant_reference)).toHaveLength(0);
      const [g] = await guardsOf(later.merchant_reference);
      expect(g!.charged_at.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    });

    it("refuses a guard that is not an intent's, not a fingerprint, or from a login that may not charge", async () => {
      const onCallback = { ...callback(), guard: lostIntent(7_005_00, Date.now()).guard! };
      const short = lostIntent(7_006_00, Date.now(), Buffer.alloc(16, 1));
      const byFinance = lostIntent(7_007_00, Date.now());
      const out = [
        ...(await restoreEvents(support, [onCallback, short])),
        ...(await restoreEvents(finance, [byFinance])),
      ];
      expect(out.map((r) => [r.outcome, r.reason])).toEqual([
        ['refused', 'a guard goes back with its intent only'],
        ['refused', expect.stringMatching(/^guard: give the fingerprint as the 64 hex digits/)],
        ['refused', expect.stringMatching(/may not charge, so it puts back no guard/)],
      ]);
      for (const r of [onCallback, short, byFinance]) expect(await row(r.event_key)).toHaveLength(0);
    });
  });
});
