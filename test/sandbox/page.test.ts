import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { control, initialize, opensslHmac, opensslVerifyRsa, sandbox, submitPage, US_BILLING } from './helpers.js';

function redirectParams(location: string | null) {
  expect(location).toBeTruthy();
  const u = new URL(location!);
  expect(u.origin + u.pathname).toBe('https://merchant.example/return');
  return Object.fromEntries(u.searchParams) as Record<string, string>;
}

describe('sandbox hosted payment page and redirect', () => {
  it('shows merchant, amount, description and only the masked card, with labelled buttons', async () => {
    const sb = await sandbox();
    const c = await initialize(sb, { amount: 150000, description: 'Phone order 77 <b>' });
    const res = await fetch(c.payment_url);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('Sandbox Merchant Ltd');
    expect(html).toContain('UGX 150,000');
    expect(html).toContain('Phone order 77 &lt;b&gt;');
    expect(html).toContain('•••• 4242');
    expect(html).not.toContain('4242424242424242');
    expect(html).toMatch(/<button[^>]*>Pay UGX 150,000<\/button>/);
    expect(html).toMatch(/<button[^>]*>Cancel payment<\/button>/);
    expect(html).not.toMatch(/<script|https?:\/\/(?!merchant)/);
    expect(html).not.toContain('One-time code');
  });

  it('Pay on the approve card redirects with signed parameters that openssl verifies', async () => {
    const sb = await sandbox();
    const c = await initialize(sb);
    const r = await submitPage(c.payment_url, { action: 'pay' });
    expect(r.status).toBe(302);
    const p = redirectParams(r.location);
    expect(p).toMatchObject({
      event: 'transaction.completed',
      merchant_reference: c.merchant_reference,
      internal_reference: c.internal_reference,
      transaction_type: 'Collection',
      transaction_status: 'COMPLETED',
    });
    const signed = `transaction.completed:${c.merchant_reference}:${c.internal_reference}:Collection:COMPLETED`;
    const m = /^t=(\d+),s=([0-9a-f]{64})$/.exec(p.hmac_signature!);
    expect(m).toBeTruthy();
    expect(Math.abs(Number(m![1]) - Date.now() / 1000)).toBeLessThan(120);
    expect(m![2]).toBe(opensslHmac(sb.signingKey, signed));
    expect(opensslVerifyRsa(sb.servicePublicKeyPath, signed, p.rsa_signature!)).toBe(true);
    // and a tampered string does not verify
    expect(opensslVerifyRsa(sb.servicePublicKeyPath, signed.replace('COMPLETED', 'FAILED'), p.rsa_signature!)).toBe(
      false,
    );
  });

  it('keeps the existing query of redirect_url', async () => {
    const sb = await sandbox();
    const c = await initialize(sb, { redirect_url: 'https://merchant.example/return?shop=7' });
    const r = await submitPage(c.payment_url, { action: 'pay' });
    expect(new URL(r.location!).searchParams.get('shop')).toBe('7');
  });

  it.each([
    ['4000000000000002', 'transaction.failed', 'FAILED', 'Card declined'],
    ['4000000000009995', 'transaction.failed', 'FAILED', 'Insufficient funds'],
    ['5555555555554444', 'transaction.completed', 'COMPLETED', 'Transaction completed successfully'],
    ['4000000000000259', 'transaction.completed', 'COMPLETED', 'Transaction completed successfully'],
  ])('card %s: %s', async (cardNo, event, status, message) => {
    const sb = await sandbox();
    const c = await initialize(sb, {}, { card_no: cardNo, ...(cardNo.startsWith('5555') ? US_BILLING : {}) });
    const r = await submitPage(c.payment_url, { action: 'pay' });
    expect(redirectParams(r.location)).toMatchObject({ event, transaction_status: status });
    const rec = await control<{ status: string; status_message: string }>(
      sb,
      'GET',
      `/collections/${c.merchant_reference}`,
    );
    expect(rec.body).toMatchObject({ status, status_message: message });
  });

  it('Cancel payment -> CANCELLED', async () => {
    const sb = await sandbox();
    const c = await initialize(sb);
    const r = await submitPage(c.payment_url, { action: 'cancel' });
    expect(redirectParams(r.location)).toMatchObject({
      event: 'transaction.cancelled',
      transaction_status: 'CANCELLED',
    });
  });

  it('the challenge card asks for a one-time code: 123456 approves', async () => {
    const sb = await sandbox();
    const c = await initialize(sb, {}, { card_no: '4000000000003220' });
    const html = await (await fetch(c.payment_url)).text();
    expect(html).toMatch(/<label for="otp">One-time code<\/label>/);
    expect(html).toMatch(/<button[^>]*>Verify<\/button>/);
    const afterPay = await submitPage(c.payment_url, { action: 'pay' });
    expect(afterPay.status).toBe(200);
    expect(afterPay.html).toContain('one-time code');
    const r = await submitPage(c.payment_url, { action: 'verify', otp: '123456' });
    expect(redirectParams(r.location)).toMatchObject({ transaction_status: 'COMPLETED' });
  });

  it('the challenge card with a wrong code fails', async () => {
    const sb = await sandbox();
    const c = await initialize(sb, {}, { card_no: '4000000000003220' });
    const r = await submitPage(c.payment_url, { action: 'verify', otp: '000000' });
    expect(redirectParams(r.location)).toMatchObject({ event: 'transaction.failed', transaction_status: 'FAILED' });
  });

  it('a finished payment shows its final state and cannot be paid twice', async () => {
    const sb = await sandbox();
    const c = await initialize(sb, {}, { card_no: '4000000000000002' });
    await submitPage(c.payment_url, { action: 'pay' });
    const again = await submitPage(c.payment_url, { action: 'pay' });
    expect(again.status).toBe(200);
    expect(again.location).toBeNull();
    expect(again.html).toContain('FAILED');
    expect(again.html).not.toMatch(/>Pay UGX/);
    const rec = await control<{ history: unknown[] }>(sb, 'GET', `/collections/${c.merchant_reference}`);
    expect(rec.body.history).toHaveLength(2);
    const get = await (await fetch(c.payment_url)).text();
    expect(get).toContain('Card declined');
  });

  it('a page left alone expires to CANCELLED 15 minutes (sandbox clock) after initialize', async () => {
    const sb = await sandbox();
    const c = await initialize(sb);
    await control(sb, 'POST', '/clock/advance', { ms: 14 * 60_000 });
    expect((await control<{ status: string }>(sb, 'GET', `/collections/${c.merchant_reference}`)).body.status).toBe(
      'PENDING',
    );
    await control(sb, 'POST', '/clock/advance', { ms: 60_000 });
    const rec = await control<{ status: string; status_message: string }>(
      sb,
      'GET',
      `/collections/${c.merchant_reference}`,
    );
    expect(rec.body).toMatchObject({ status: 'CANCELLED', status_message: 'Payment page expired' });
    const r = await submitPage(c.payment_url, { action: 'pay' });
    expect(r.status).toBe(200);
    expect(r.html).toContain('CANCELLED');
  });

  it('an unknown payment token is a 404 page', async () => {
    const sb = await sandbox();
    const res = await fetch(`${sb.baseUrl}/pay/${crypto.randomBytes(18).toString('base64url')}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('Payment not found');
  });

  it('the complete control finishes without a browser and returns the same signed redirect', async () => {
    const sb = await sandbox();
    const c = await initialize(sb);
    const r = await control<{ redirect_url: string }>(sb, 'POST', `/collections/${c.merchant_reference}/complete`, {
      outcome: 'insufficient_funds',
    });
    expect(r.status).toBe(200);
    const p = redirectParams(r.body.redirect_url);
    expect(p).toMatchObject({ transaction_status: 'FAILED', merchant_reference: c.merchant_reference });
    const twice = await control<{ message: string }>(sb, 'POST', `/collections/${c.merchant_reference}/complete`, {
      outcome: 'approve',
    });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toMatch(/already FAILED/);
    const bad = await control<{ data: unknown }>(sb, 'POST', `/collections/${c.merchant_reference}/complete`, {
      outcome: 'maybe',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.data).toEqual({ field: 'outcome' });
  });
});
