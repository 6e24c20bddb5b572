import { describe, expect, it } from 'vitest';
import { balances, collectionWallet, control, initialize, receiver, sandbox, submitPage } from './helpers.js';

const HOUR = 3600_000;

describe('sandbox balances move with collections and the clock', () => {
  it('a completed collection credits uncleared net of charge and 5% reserve, then clears after an hour', async () => {
    const sb = await sandbox();
    const before = await collectionWallet(sb);
    const c = await initialize(sb, { amount: 200000 });
    // nothing moves while pending
    expect(await collectionWallet(sb)).toEqual(before);
    await submitPage(c.payment_url, { action: 'pay' });
    // charge 7,000; credit 193,000; reserve 9,650; uncleared 183,350
    const done = await collectionWallet(sb);
    expect(done.uncleared_balance - before.uncleared_balance).toBe(183350);
    expect(done.reserve_balance - before.reserve_balance).toBe(9650);
    expect(done.available_balance).toBe(before.available_balance);
    expect(done.actual_balance - before.actual_balance).toBe(193000);
    expect(done.actual_balance).toBe(done.available_balance + done.uncleared_balance + done.reserve_balance);

    await control(sb, 'POST', '/clock/advance', { ms: HOUR - 60_000 });
    expect(await collectionWallet(sb)).toEqual(done);
    await control(sb, 'POST', '/clock/advance', { ms: 60_000 });
    const cleared = await collectionWallet(sb);
    expect(cleared.available_balance - before.available_balance).toBe(183350);
    expect(cleared.uncleared_balance).toBe(before.uncleared_balance);
    expect(cleared.reserve_balance - before.reserve_balance).toBe(9650);
    expect(cleared.actual_balance).toBe(done.actual_balance);
    const rec = await control<{ cleared: boolean }>(sb, 'GET', `/collections/${c.merchant_reference}`);
    expect(rec.body.cleared).toBe(true);
  });

  it('failed and cancelled collections move nothing', async () => {
    const sb = await sandbox();
    const before = await collectionWallet(sb);
    const a = await initialize(sb, {}, { card_no: '4000000000000002' });
    const b = await initialize(sb);
    await submitPage(a.payment_url, { action: 'pay' });
    await submitPage(b.payment_url, { action: 'cancel' });
    expect(await collectionWallet(sb)).toEqual(before);
  });

  it('money stays exact in 2-decimal currencies and actual is always the sum', async () => {
    const sb = await sandbox();
    const before = await collectionWallet(sb, 'KES');
    const c = await initialize(sb, { currency: 'KES', amount: 1234.57 });
    await control(sb, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'approve' });
    const after = await collectionWallet(sb, 'KES');
    // 123457 cents: charge 4321 (4320.995 half up), credit 119136, reserve 5957 (5956.8), uncleared 113179
    const cents = (n: number) => Math.round(n * 100);
    expect(cents(after.uncleared_balance) - cents(before.uncleared_balance)).toBe(113179);
    expect(cents(after.reserve_balance) - cents(before.reserve_balance)).toBe(5957);
    expect(cents(after.actual_balance)).toBe(
      cents(after.available_balance) + cents(after.uncleared_balance) + cents(after.reserve_balance),
    );
  });

  it('the flip card completes, then 10 minutes later flips to FAILED with a new callback and the credit reversed', async () => {
    const rx = await receiver();
    const sb = await sandbox({ callbackUrl: rx.url });
    const before = await collectionWallet(sb);
    const c = await initialize(sb, { amount: 100000 }, { card_no: '4000000000000259' });
    await submitPage(c.payment_url, { action: 'pay' });
    await rx.waitFor(1);
    expect((await collectionWallet(sb)).actual_balance - before.actual_balance).toBe(96500);
    await control(sb, 'POST', '/clock/advance', { ms: 9 * 60_000 });
    expect((await control<{ status: string }>(sb, 'GET', `/collections/${c.merchant_reference}`)).body.status).toBe(
      'COMPLETED',
    );
    await control(sb, 'POST', '/clock/advance', { ms: 60_000 });
    const [, second] = await rx.waitFor(2);
    expect(second!.body.event).toBe('transaction.failed');
    expect(second!.body.payload).toMatchObject({
      merchant_reference: c.merchant_reference,
      transaction_status: 'FAILED',
    });
    expect(await collectionWallet(sb)).toEqual(before);
    const rec = await control<{ status: string; history: { status: string; source: string }[] }>(
      sb,
      'GET',
      `/collections/${c.merchant_reference}`,
    );
    expect(rec.body.history.map((h) => `${h.status}/${h.source}`)).toEqual([
      'PENDING/initialize',
      'COMPLETED/page',
      'FAILED/final_status_change',
    ]);
  });

  it('the flip card does not flip when allow_final_status_change is false', async () => {
    const sb = await sandbox();
    const c = await initialize(sb, { allow_final_status_change: false }, { card_no: '4000000000000259' });
    await submitPage(c.payment_url, { action: 'pay' });
    await control(sb, 'POST', '/clock/advance', { ms: 2 * HOUR });
    expect((await control<{ status: string }>(sb, 'GET', `/collections/${c.merchant_reference}`)).body.status).toBe(
      'COMPLETED',
    );
    const r = await control<{ message: string }>(sb, 'POST', `/collections/${c.merchant_reference}/flip`, {
      status: 'FAILED',
    });
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/allow_final_status_change/);
  });

  it('the flip control reverses a cleared credit from available, and can complete a failed one', async () => {
    const rx = await receiver();
    const sb = await sandbox({ callbackUrl: rx.url });
    const before = await collectionWallet(sb);
    const c = await initialize(sb, { amount: 100000 });
    await control(sb, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'approve' });
    await control(sb, 'POST', '/clock/advance', { ms: HOUR });
    const r = await control<{ status: string }>(sb, 'POST', `/collections/${c.merchant_reference}/flip`, {
      status: 'FAILED',
    });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('FAILED');
    expect(await collectionWallet(sb)).toEqual(before);
    await control(sb, 'POST', `/collections/${c.merchant_reference}/flip`, { status: 'COMPLETED' });
    expect((await collectionWallet(sb)).uncleared_balance - before.uncleared_balance).toBe(91675);
    await rx.waitFor(3);
    expect(rx.got.map((g) => g.body.payload.transaction_status)).toEqual(['COMPLETED', 'FAILED', 'COMPLETED']);
    const same = await control(sb, 'POST', `/collections/${c.merchant_reference}/flip`, { status: 'COMPLETED' });
    expect(same.status).toBe(409);
    const pending = await initialize(sb);
    expect(
      (await control(sb, 'POST', `/collections/${pending.merchant_reference}/flip`, { status: 'FAILED' })).status,
    ).toBe(409);
  });

  it('actual is the sum of the others in every wallet after every kind of step', async () => {
    const sb = await sandbox();
    const exp: Record<string, number> = { UGX: 0, KES: 2, TZS: 2, USD: 2 };
    const check = async (step: string) => {
      for (const cur of ['UGX', 'KES', 'TZS', 'USD']) {
        for (const w of await balances(sb, cur)) {
          const m = (k: string) => Math.round((w[k] as number) * 10 ** exp[cur]!);
          expect(m('actual_balance'), `${step}: ${cur} ${w.wallet_type}`).toBe(
            m('available_balance') + m('uncleared_balance') + m('reserve_balance'),
          );
        }
      }
    };
    const steps: [string, () => Promise<unknown>][] = [];
    const refs: string[] = [];
    for (const [currency, amount] of [
      ['UGX', 12345],
      ['KES', 999.99],
      ['TZS', 2000.01],
      ['USD', 10.05],
    ] as const) {
      steps.push([
        `initialize ${currency}`,
        async () => refs.push((await initialize(sb, { currency, amount })).merchant_reference),
      ]);
    }
    steps.push([
      'approve all',
      () => Promise.all(refs.map((r) => control(sb, 'POST', `/collections/${r}/complete`, { outcome: 'approve' }))),
    ]);
    steps.push(['flip one to FAILED', () => control(sb, 'POST', `/collections/${refs[1]}/flip`, { status: 'FAILED' })]);
    steps.push(['clear', () => control(sb, 'POST', '/clock/advance', { ms: HOUR })]);
    steps.push([
      'flip a cleared one',
      () => control(sb, 'POST', `/collections/${refs[2]}/flip`, { status: 'CANCELLED' }),
    ]);
    steps.push([
      'flip back to COMPLETED',
      () => control(sb, 'POST', `/collections/${refs[1]}/flip`, { status: 'COMPLETED' }),
    ]);
    steps.push(['clear again', () => control(sb, 'POST', '/clock/advance', { ms: HOUR })]);
    await check('seeded');
    for (const [name, run] of steps) {
      await run();
      await check(name);
    }
  });
});
