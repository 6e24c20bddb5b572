import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { call, control, initBody, sandbox } from './helpers.js';

async function raw(url: string, init: RequestInit = {}) {
  try {
    const res = await fetch(url, init);
    return { status: res.status, headers: res.headers, text: await res.text() };
  } catch (e) {
    return { error: e as Error };
  }
}

const balanceHeaders = (sb: { publicKey: string; secretKey: string }) => ({
  'x-api-version': '1',
  'public-key': sb.publicKey,
  'secret-key': sb.secretKey,
});

describe('sandbox faults and rate limiting', () => {
  it.each([
    ['500', 500],
    ['503', 503],
  ])('%s answers the error envelope once, then the route works again', async (kind, code) => {
    const sb = await sandbox();
    await control(sb, 'POST', '/faults', { route: 'balances', kind, retry_after_s: 7 });
    const r = await call(sb, 'GET', '/data/wallet-balances');
    expect(r.status).toBe(code);
    expect(r.body).toMatchObject({ code, status: 'error' });
    if (code === 503) expect(r.headers.get('retry-after')).toBe('7');
    expect((await call(sb, 'GET', '/data/wallet-balances')).status).toBe(200);
  });

  it('html: a non-JSON error page', async () => {
    const sb = await sandbox();
    await control(sb, 'POST', '/faults', { route: 'providers', kind: 'html' });
    const r = await raw(`${sb.baseUrl}/data/payment-providers`, {
      headers: { 'x-api-version': '1', 'public-key': sb.publicKey },
    });
    expect('status' in r && r.status).toBe(502);
    expect('text' in r && r.text).toMatch(/^<!DOCTYPE html>/);
  });

  it('truncated_json: the body is cut in half', async () => {
    const sb = await sandbox();
    await control(sb, 'POST', '/faults', { route: 'balances', kind: 'truncated_json' });
    const r = await raw(`${sb.baseUrl}/data/wallet-balances`, { headers: balanceHeaders(sb) });
    expect('status' in r && r.status).toBe(200);
    expect(() => JSON.parse((r as { text: string }).text)).toThrow();
  });

  it('wrong_types: numbers become text and text numbers', async () => {
    const sb = await sandbox();
    await control(sb, 'POST', '/faults', { route: 'balances', kind: 'wrong_types' });
    const r = await call(sb, 'GET', '/data/wallet-balances?currency=UGX');
    const first = (r.body.data as { merchant_balances: Record<string, unknown>[] }).merchant_balances[0]!;
    expect(typeof first.available_balance).toBe('string');
    expect(typeof first.currency).toBe('number');
  });

  it('latency delays the answer; times: 0 lasts until cleared; * hits every route', async () => {
    const sb = await sandbox();
    await control(sb, 'POST', '/faults', { route: '*', kind: '500', times: 0 });
    for (let i = 0; i < 3; i++) {
      expect((await call(sb, 'GET', '/data/wallet-balances')).status).toBe(500);
      expect((await call(sb, 'GET', '/data/payment-providers', { keys: 'public' })).status).toBe(500);
    }
    expect((await control<{ faults: unknown[] }>(sb, 'GET', '/state')).body.faults).toHaveLength(1);
    await control(sb, 'DELETE', '/faults');
    expect((await call(sb, 'GET', '/data/wallet-balances')).status).toBe(200);
    await control(sb, 'POST', '/faults', { route: 'balances', kind: 'latency', latency_ms: 400 });
    const t0 = Date.now();
    const r = await call(sb, 'GET', '/data/wallet-balances');
    expect(r.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
  });

  it('rate_limit answers 429 with Retry-After', async () => {
    const sb = await sandbox();
    await control(sb, 'POST', '/faults', { route: 'initialize', kind: 'rate_limit', retry_after_s: 3 });
    const r = await call(sb, 'POST', '/collections/initialize', { body: initBody(sb) });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('3');
    expect((await control<{ collections: number }>(sb, 'GET', '/state')).body.collections).toBe(0);
  });

  it('a real per-key rate limit can be switched on', async () => {
    const sb = await sandbox();
    await control(sb, 'POST', '/config', { rate_limit_per_s: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(sb, 'GET', '/data/wallet-balances')).status);
    expect(statuses).toContain(429);
    await control(sb, 'POST', '/config', { rate_limit_per_s: 0 });
    expect((await call(sb, 'GET', '/data/wallet-balances')).status).toBe(200);
  });

  it('drop_after_commit: the collection is created but the connection closes without an answer', async () => {
    const sb = await sandbox();
    await control(sb, 'POST', '/faults', { route: 'initialize', kind: 'drop_after_commit' });
    const body = initBody(sb);
    const r = await raw(`${sb.baseUrl}/collections/initialize`, {
      method: 'POST',
      headers: { ...balanceHeaders(sb), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect('error' in r).toBe(true);
    const rec = await control<{ status: string }>(sb, 'GET', `/collections/${body.merchant_reference}`);
    expect(rec.status).toBe(200);
    expect(rec.body.status).toBe('PENDING');
    // a re-send of the same reference learns it exists
    const again = await call(sb, 'POST', '/collections/initialize', { body });
    expect(again.status).toBe(422);
    expect(again.body.message).toMatch(/duplicate/);
  });

  it('reset: the connection closes and nothing is created', async () => {
    const sb = await sandbox();
    await control(sb, 'POST', '/faults', { route: 'initialize', kind: 'reset' });
    const body = initBody(sb);
    const r = await raw(`${sb.baseUrl}/collections/initialize`, {
      method: 'POST',
      headers: { ...balanceHeaders(sb), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect('error' in r).toBe(true);
    expect((await control<{ collections: number }>(sb, 'GET', '/state')).body.collections).toBe(0);
  });

  it('refuses a bad fault with a message naming the field', async () => {
    const sb = await sandbox();
    const a = await control<{ data: unknown; message: string }>(sb, 'POST', '/faults', {
      route: 'balances',
      kind: 'explode',
    });
    expect(a.status).toBe(422);
    expect(a.body.data).toEqual({ field: 'kind' });
    const b = await control<{ data: unknown }>(sb, 'POST', '/faults', { route: 'everything', kind: '500' });
    expect(b.body.data).toEqual({ field: 'route' });
    const c = await control<{ data: unknown }>(sb, 'POST', '/clock/advance', { ms: -5 });
    expect(c.status).toBe(422);
    expect(c.body.data).toEqual({ field: 'ms' });
  });

  it('closes cleanly with a client connection still open', async () => {
    const sb = await sandbox();
    const u = new URL(sb.baseUrl);
    const sock = net.connect(Number(u.port), u.hostname);
    await new Promise((r) => sock.once('connect', r));
    await sb.close();
    await new Promise((r) => sock.once('close', r));
    expect(sock.destroyed).toBe(true);
  });
});
