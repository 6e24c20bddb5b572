import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, sandbox } from './helpers.js';

describe('sandbox service routes: headers, keys, balances, payment options', () => {
  it('writes sandbox.json and the service public key PEM', async () => {
    const sb = await sandbox();
    const info = JSON.parse(fs.readFileSync(path.join(sb.stateDir, 'sandbox.json'), 'utf8'));
    expect(info).toEqual({
      base_url: sb.baseUrl,
      public_key: sb.publicKey,
      secret_key: sb.secretKey,
      signing_key: sb.signingKey,
      service_public_key_path: sb.servicePublicKeyPath,
    });
    expect(fs.readFileSync(sb.servicePublicKeyPath, 'utf8')).toBe(sb.servicePublicKeyPem);
    expect(sb.servicePublicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(sb.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 400 when x-api-version is missing, on every operation', async () => {
    const sb = await sandbox();
    for (const [m, p] of [
      ['GET', '/data/wallet-balances'],
      ['GET', '/data/payment-providers?currency=UGX&transaction_type=COLLECTION'],
      ['POST', '/collections/initialize'],
    ] as const) {
      const r = await call(sb, m, p, { headers: { 'x-api-version': '' }, body: m === 'POST' ? {} : undefined });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ code: 400, status: 'error', message: 'x-api-version header is required', data: null });
    }
    const v2 = await call(sb, 'GET', '/data/wallet-balances', { headers: { 'x-api-version': '2' } });
    expect(v2.status).toBe(400);
    expect(v2.body.message).toContain('x-api-version');
  });

  it('needs both keys for balances and initialize, and 401s wrong or missing ones', async () => {
    const sb = await sandbox();
    const cases: [Record<string, string>, 'both' | 'public' | 'none', RegExp][] = [
      [{}, 'none', /public-key/],
      [{}, 'public', /secret-key/],
      [{ 'secret-key': 'SK-WRONG' }, 'public', /secret-key/],
      [{ 'public-key': 'PK-WRONG' }, 'both', /public-key/],
    ];
    for (const [headers, keys, msg] of cases) {
      for (const [m, p] of [
        ['GET', '/data/wallet-balances'],
        ['POST', '/collections/initialize'],
      ] as const) {
        const r = await call(sb, m, p, { headers, keys, body: m === 'POST' ? {} : undefined });
        expect(r.status).toBe(401);
        expect(r.body.code).toBe(401);
        expect(r.body.status).toBe('error');
        expect(r.body.message).toMatch(msg);
        expect(r.body.message).not.toContain(sb.secretKey);
      }
    }
    expect((await control(sb)).collections).toBe(0);
  });

  it('payment options need only the public key; a wrong public key is 401', async () => {
    const sb = await sandbox();
    const ok = await call(sb, 'GET', '/data/payment-providers?currency=UGX&transaction_type=COLLECTION', {
      keys: 'public',
    });
    expect(ok.status).toBe(200);
    const bad = await call(sb, 'GET', '/data/payment-providers', {
      keys: 'none',
      headers: { 'public-key': 'PK-NOPE' },
    });
    expect(bad.status).toBe(401);
  });

  it('lists wallets of UGX, KES, TZS and USD, both types, amounts in major units, actual = the sum', async () => {
    const sb = await sandbox();
    const r = await call(sb, 'GET', '/data/wallet-balances');
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(200);
    expect(r.body.status).toBe('success');
    const list = (r.body.data as { merchant_balances: Record<string, unknown>[] }).merchant_balances;
    const pairs = list.map((b) => `${b.currency}/${b.wallet_type}`).sort();
    expect(pairs).toEqual(
      ['KES', 'TZS', 'UGX', 'USD'].flatMap((c) => [`${c}/MERCHANT_COLLECTION`, `${c}/MERCHANT_PAYOUT`]).sort(),
    );
    for (const b of list) {
      const exp = b.currency === 'UGX' ? 0 : 2;
      for (const k of ['available_balance', 'actual_balance', 'uncleared_balance', 'reserve_balance']) {
        expect(typeof b[k]).toBe('number');
        const decimals = String(b[k]).split('.')[1]?.length ?? 0;
        expect(decimals).toBeLessThanOrEqual(exp);
      }
      expect(b.available_balance as number).toBeGreaterThan(0);
      const minor = (n: unknown) => Math.round((n as number) * 10 ** exp);
      expect(minor(b.actual_balance)).toBe(
        minor(b.available_balance) + minor(b.uncleared_balance) + minor(b.reserve_balance),
      );
    }
  });

  it('filters balances by currency; a currency the merchant does not hold gives an empty list', async () => {
    const sb = await sandbox();
    const kes = await call(sb, 'GET', '/data/wallet-balances?currency=KES');
    const list = (kes.body.data as { merchant_balances: { currency: string }[] }).merchant_balances;
    expect(list).toHaveLength(2);
    expect(list.every((b) => b.currency === 'KES')).toBe(true);
    const eur = await call(sb, 'GET', '/data/wallet-balances?currency=EUR');
    expect(eur.status).toBe(200);
    expect(eur.body.data).toEqual({ merchant_balances: [] });
  });

  it('lists payment options: mobile money with prefixes, a card option per currency, one inactive', async () => {
    const sb = await sandbox();
    const all = await call(sb, 'GET', '/data/payment-providers', { keys: 'public' });
    const list = (all.body.data as { payment_providers: Record<string, unknown>[] }).payment_providers;
    expect(list.filter((o) => o.is_active === false)).toHaveLength(1);
    for (const cur of ['UGX', 'KES', 'TZS', 'USD']) {
      const card = list.find((o) => o.transaction_currency === cur && o.transaction_method === 'CARD');
      expect(card?.provider_code).toBe(`CARD_${cur}`);
      expect(card?.transaction_type).toBe('Collection');
      expect(card!.min_amount as number).toBeLessThan(card!.max_amount as number);
      expect(card!.max_amount as number).toBeLessThanOrEqual(card!.max_daily_amount as number);
    }
    const mtn = list.find((o) => o.provider_code === 'MTN_UGX' && o.transaction_type === 'Collection');
    expect(mtn?.transaction_method).toBe('MOBILE_MONEY');
    expect(mtn?.option_prefixes).toContain('25677');

    const ugx = await call(sb, 'GET', '/data/payment-providers?currency=UGX&transaction_type=COLLECTION', {
      keys: 'public',
    });
    const ul = (ugx.body.data as { payment_providers: Record<string, unknown>[] }).payment_providers;
    expect(ul.length).toBeGreaterThan(1);
    expect(ul.every((o) => o.transaction_currency === 'UGX' && o.transaction_type === 'Collection')).toBe(true);

    const payout = await call(sb, 'GET', '/data/payment-providers?transaction_type=PAYOUT', { keys: 'public' });
    const pl = (payout.body.data as { payment_providers: Record<string, unknown>[] }).payment_providers;
    expect(pl.length).toBeGreaterThan(0);
    expect(pl.every((o) => o.transaction_type === 'Payout')).toBe(true);

    const none = await call(sb, 'GET', '/data/payment-providers?currency=EUR', { keys: 'public' });
    expect(none.body.data).toEqual({ payment_providers: [] });
  });

  it('rejects an unknown transaction_type with 422 naming it', async () => {
    const sb = await sandbox();
    const r = await call(sb, 'GET', '/data/payment-providers?currency=UGX&transaction_type=REFUND', { keys: 'public' });
    expect(r.status).toBe(422);
    expect(r.body.status).toBe('error');
    expect(r.body.data).toEqual({ field: 'transaction_type' });
    expect(r.body.message).toContain('transaction_type');
  });

  it('answers unknown paths with the error envelope', async () => {
    const sb = await sandbox();
    const r = await call(sb, 'GET', '/data/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body.status).toBe('error');
  });
});

async function control(sb: { baseUrl: string }) {
  return (await (await fetch(sb.baseUrl + '/__sandbox/state')).json()) as { collections: number };
}
