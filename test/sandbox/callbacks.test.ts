import { describe, expect, it } from 'vitest';
import { control, initialize, opensslHmac, opensslVerifyRsa, receiver, sandbox, submitPage } from './helpers.js';
import type { CallbackLogEntry } from '../../sandbox/index.js';

describe('sandbox callbacks', () => {
  it('posts a signed JSON callback with the whole payload; openssl verifies both signatures', async () => {
    const rx = await receiver();
    const sb = await sandbox({ callbackUrl: rx.url });
    const c = await initialize(sb, { amount: 100000, customer_name: 'Grace Hopper' });
    await submitPage(c.payment_url, { action: 'pay' });
    const [got] = await rx.waitFor(1);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.body).toEqual({
      event: 'transaction.completed',
      payload: {
        id: expect.any(Number),
        merchant_reference: c.merchant_reference,
        internal_reference: c.internal_reference,
        transaction_type: 'Collection',
        request_currency: 'UGX',
        request_amount: 100000,
        transaction_currency: 'UGX',
        transaction_amount: 100000,
        transaction_charge: 3500,
        total_credit: 96500,
        charge_customer: false,
        provider_code: 'CARD_UGX',
        customer_name: 'Grace Hopper',
        transaction_status: 'COMPLETED',
        status_message: 'Transaction completed successfully',
      },
    });
    const signed = `transaction.completed:${c.merchant_reference}:${c.internal_reference}:Collection:COMPLETED`;
    const hmac = String(got!.headers['hmac-signature']);
    expect(hmac).toMatch(/^t=\d+,s=[0-9a-f]{64}$/);
    expect(hmac.split(',s=')[1]).toBe(opensslHmac(sb.signingKey, signed));
    expect(opensslVerifyRsa(sb.servicePublicKeyPath, signed, String(got!.headers['rsa-signature']))).toBe(true);
  });

  it('charge_customer: the customer pays amount + 3.5% (half up) and the merchant is credited the amount', async () => {
    const rx = await receiver();
    const sb = await sandbox({ callbackUrl: rx.url });
    const c = await initialize(sb, { currency: 'KES', amount: 1000.1, charge_customer: true });
    await control(sb, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'approve' });
    const [got] = await rx.waitFor(1);
    // 3.5% of 100010 cents = 3500.35 -> 3500 cents
    expect(got!.body.payload).toMatchObject({
      request_amount: 1000.1,
      transaction_amount: 1035.1,
      transaction_charge: 35,
      total_credit: 1000.1,
      charge_customer: true,
    });
  });

  it('retries until a 2xx with back-off, and logs every attempt', async () => {
    const rx = await receiver((n) => (n < 3 ? 500 : 204));
    const sb = await sandbox({ callbackUrl: rx.url, timeScale: 100 });
    const c = await initialize(sb);
    await submitPage(c.payment_url, { action: 'cancel' });
    await rx.waitFor(3);
    await sb.controls.callbacksSettled();
    expect(rx.got.map((g) => g.body.payload.transaction_status)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
    const log = (await control<CallbackLogEntry[]>(sb, 'GET', '/callbacks/log')).body;
    expect(log.map((l) => [l.status, l.http_status, l.attempt])).toEqual([
      ['http_error', 500, 1],
      ['http_error', 500, 2],
      ['delivered', 204, 3],
    ]);
    expect(log.every((l) => l.merchant_reference === c.merchant_reference && l.event === 'transaction.cancelled')).toBe(
      true,
    );
  });

  it('keeps retrying while the receiver is down and delivers once it is set', async () => {
    const sb = await sandbox({ timeScale: 100 });
    const c = await initialize(sb);
    await control(sb, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'decline' });
    await sb.controls.callbacksSettled(200).catch(() => undefined);
    expect((await control<CallbackLogEntry[]>(sb, 'GET', '/callbacks/log')).body[0]).toMatchObject({
      status: 'no_callback_url',
    });
    const rx = await receiver();
    await control(sb, 'POST', '/config', { callback_url: rx.url });
    const [got] = await rx.waitFor(1);
    expect(got!.body.event).toBe('transaction.failed');
    expect((await control<{ callback_url: string }>(sb, 'GET', '/state')).body.callback_url).toBe(rx.url);
  });

  it('duplicate mode sends each callback twice', async () => {
    const rx = await receiver();
    const sb = await sandbox({ callbackUrl: rx.url });
    await control(sb, 'POST', '/callbacks/mode', { mode: 'duplicate' });
    const c = await initialize(sb);
    await submitPage(c.payment_url, { action: 'pay' });
    await rx.waitFor(2);
    await sb.controls.callbacksSettled();
    expect(rx.got).toHaveLength(2);
    expect(rx.got[0]!.raw).toBe(rx.got[1]!.raw);
  });

  it('hold mode queues callbacks until release; reorder releases newest first', async () => {
    const rx = await receiver();
    const sb = await sandbox({ callbackUrl: rx.url });
    await control(sb, 'POST', '/callbacks/mode', { mode: 'hold' });
    const a = await initialize(sb);
    const b = await initialize(sb);
    await submitPage(a.payment_url, { action: 'pay' });
    await submitPage(b.payment_url, { action: 'cancel' });
    expect((await control<{ held_callbacks: number }>(sb, 'GET', '/state')).body.held_callbacks).toBe(2);
    expect(rx.got).toHaveLength(0);
    expect((await control(sb, 'POST', '/callbacks/release')).body).toEqual({ released: 2 });
    await rx.waitFor(2);
    expect(rx.got.map((g) => g.body.payload.merchant_reference)).toEqual([a.merchant_reference, b.merchant_reference]);

    await control(sb, 'POST', '/callbacks/mode', { mode: 'reorder' });
    const c = await initialize(sb);
    const d = await initialize(sb);
    await control(sb, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'approve' });
    await control(sb, 'POST', `/collections/${d.merchant_reference}/complete`, { outcome: 'approve' });
    await control(sb, 'POST', '/callbacks/release');
    await rx.waitFor(4);
    expect(rx.got.slice(2).map((g) => g.body.payload.merchant_reference)).toEqual([
      d.merchant_reference,
      c.merchant_reference,
    ]);
  });

  it('delay mode holds each callback for delay_ms', async () => {
    const rx = await receiver();
    const sb = await sandbox({ callbackUrl: rx.url });
    await control(sb, 'POST', '/callbacks/mode', { mode: 'delay', delay_ms: 1500 });
    const c = await initialize(sb);
    await control(sb, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'approve' });
    expect((await control<{ pending_callbacks: number }>(sb, 'GET', '/state')).body.pending_callbacks).toBe(1);
    expect(rx.got).toHaveLength(0);
    await rx.waitFor(1);
  });

  it('resend sends the latest callback of a collection again; unknown modes are refused', async () => {
    const rx = await receiver();
    const sb = await sandbox({ callbackUrl: rx.url });
    const c = await initialize(sb);
    await control(sb, 'POST', `/collections/${c.merchant_reference}/complete`, { outcome: 'approve' });
    await rx.waitFor(1);
    const r = await control(sb, 'POST', '/callbacks/resend', { merchant_reference: c.merchant_reference });
    expect(r.status).toBe(200);
    await rx.waitFor(2);
    expect(rx.got[1]!.raw).toBe(rx.got[0]!.raw);
    const missing = await control(sb, 'POST', '/callbacks/resend', { merchant_reference: 'NOPE-NOPE-1' });
    expect(missing.status).toBe(404);
    const bad = await control<{ data: unknown }>(sb, 'POST', '/callbacks/mode', { mode: 'sometimes' });
    expect(bad.status).toBe(422);
    expect(bad.body.data).toEqual({ field: 'mode' });
  });
});
