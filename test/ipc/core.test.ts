// The composition root and the issue-3 channels over the real dispatch: real SQLite file, the real
// embedded sandbox over HTTP on 127.0.0.1, the real OS keychain (run under scripts/with-keyring.sh).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { composeCore } from '../../main/app/core.js';
import type { Core } from '../../main/app/core.js';
import { buildHandlers } from '../../main/ipc/handlers/index.js';
import { createDispatcher, typedInvoke } from '../../main/ipc/dispatch.js';
import { silentLogger } from '../../main/log/index.js';
import type { IpcResult } from '../../main/ipc/contract/index.js';
import { startSandbox, type SandboxControls } from '../../sandbox/index.js';
import { recordBalanceRun } from '../../main/store/sqlite/balances.js';
import { pushToRenderer } from '../../main/ipc/push.js';
import { insertCollection } from '../collections/helpers.js';

let core: Core | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

async function start(dataDir = tempDir()) {
  core = await composeCore({ dataDir, logger: silentLogger(), poll: true });
  await core.poller!.refresh();
  return { core, d: typedInvoke(createDispatcher(buildHandlers(core))), dataDir };
}

function value<T>(r: IpcResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

function controls(c: Core): SandboxControls {
  return c.embedded()!.controls as SandboxControls;
}

describe('embedded profile (nothing configured)', () => {
  it('starts the sandbox in the data folder, polls it, and shows balances per currency and wallet type', async () => {
    const { core, d, dataDir } = await start();
    expect(fs.existsSync(path.join(dataDir, 'sandbox'))).toBe(true);
    const b = value(await d('balances.latest', {}));
    expect(new Set(b.rows.map((r) => r.currency))).toEqual(new Set(['UGX', 'KES', 'TZS', 'USD']));
    expect(
      b.rows
        .filter((r) => r.currency === 'UGX')
        .map((r) => r.walletType)
        .sort(),
    ).toEqual(['MERCHANT_COLLECTION', 'MERCHANT_PAYOUT']);
    expect(b.rows.every((r) => r.consistent)).toBe(true);
    expect(b.stale).toBe(false);
    expect(b.asOf).not.toBeNull();
    expect(value(await d('app.status', {}))).toMatchObject({
      profile: 'embedded',
      connection: 'online',
      keychain: 'memory',
    });
    expect(core.callbackReceiverUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callbacks\/collections$/);
    expect(controls(core).state().callback_url).toBe(core.callbackReceiverUrl());
  });

  it('keeps cached balances and marks them stale with a readable error when the service fails; recovery clears it', async () => {
    const { core, d } = await start();
    const before = value(await d('balances.latest', {}));
    controls(core).addFault({ route: 'balances', kind: '503', times: 0 });
    const during = value(await d('balances.refresh', {}));
    expect(during.stale).toBe(true);
    expect(during.lastError?.message).toMatch(/unavailable/i);
    expect(during.rows).toEqual(before.rows);
    expect(value(await d('app.status', {}))).toMatchObject({ connection: 'error' });

    controls(core).addFault({ route: 'balances', kind: 'html', times: 0 });
    controls(core).clearFaults();
    controls(core).addFault({ route: 'balances', kind: 'wrong_types', times: 0 });
    const malformed = value(await d('balances.refresh', {}));
    expect(malformed.rows).toEqual(before.rows);
    expect(malformed.lastError?.kind).toBe('unreadable');

    controls(core).clearFaults();
    const after = value(await d('balances.refresh', {}));
    expect(after.stale).toBe(false);
    expect(after.lastError).toBeNull();
    expect(value(await d('app.status', {}))).toMatchObject({ connection: 'online' });
  });

  it('flags a wallet whose actual balance is not the sum of the others', async () => {
    const { core, d } = await start();
    // As if the service answered with numbers that do not add up (it is its answer: stored, then flagged).
    const now = Date.now();
    recordBalanceRun(core.db, {
      startedAt: now,
      finishedAt: now,
      result: {
        ok: true,
        value: [
          {
            currency: 'UGX',
            walletType: 'MERCHANT_PAYOUT',
            availableMinor: 100,
            actualMinor: 999,
            unclearedMinor: 0,
            reserveMinor: 0,
          },
        ],
      },
    });
    const b = value(await d('balances.latest', { currency: 'ugx' }));
    expect(b.rows.map((r) => [r.walletType, r.consistent])).toEqual([
      ['MERCHANT_COLLECTION', true],
      ['MERCHANT_PAYOUT', false],
    ]);
  });

  it("lists payment options with filters, facets and, for card options, today's collected total", async () => {
    const { core, d } = await start();
    const now = Date.now();
    const ins = core.db.prepare(
      `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, operator, redirect_url, status, status_changed_at)
       VALUES (?, ?, ?, 'UGX', 'Phone order 1234', 'test', 'https://shop.example/return', ?, ?)`,
    );
    ins.run('MD-TEST-0001', now, 150_000, 'COMPLETED', now);
    ins.run('MD-TEST-0002', now, 20_000, 'PENDING', now);
    ins.run('MD-TEST-0003', now, 70_000, 'FAILED', now);
    const all = value(await d('options.list', {}));
    expect(all.facets.currencies).toEqual(['KES', 'TZS', 'UGX', 'USD']);
    expect(all.facets.methods).toEqual(expect.arrayContaining(['CARD', 'MOBILE_MONEY']));
    expect(all.rows.some((r) => !r.isActive)).toBe(true);
    const card = value(await d('options.list', { currency: 'UGX', method: 'card', transactionType: 'COLLECTION' }));
    expect(card.rows).toHaveLength(1);
    expect(card.rows[0]).toMatchObject({ transactionMethod: 'CARD', currency: 'UGX', collectedTodayMinor: 170_000 });
    const mm = value(await d('options.list', { currency: 'UGX', method: 'MOBILE_MONEY' }));
    expect(mm.rows.length).toBeGreaterThan(0);
    expect(mm.rows.every((r) => r.collectedTodayMinor === null)).toBe(true);
  });

  it('never sends key values to the renderer and refuses to set keys on the embedded profile', async () => {
    const { core, d } = await start();
    const sb = core.embedded()!;
    const keys = await Promise.all([
      core.secrets().get('public-key'),
      core.secrets().get('secret-key'),
      core.secrets().get('signing-key'),
    ]);
    const view = value(await d('settings.get', {}));
    const text = JSON.stringify(view);
    for (const k of keys) expect(text).not.toContain(k!);
    expect(view.keys).toMatchObject({ publicKey: 'set', secretKey: 'set', signingKey: 'set', store: 'memory' });
    expect(view.embeddedBaseUrl).toBe(sb.baseUrl);
    expect(view.serviceKey).toMatchObject({ bits: 4096, source: 'embedded sandbox' });
    expect(view.serviceKey!.fingerprintSha256).toMatch(/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/i);
    const r = await d('settings.setKey', { name: 'secretKey', value: 'sk_live_abc' });
    expect(r).toMatchObject({ ok: false, error: { kind: 'validation', field: 'profile' } });
  });

  it('refuses an invalid settings change as a whole, naming every field, and saves nothing', async () => {
    const { d } = await start();
    const r = await d('settings.update', {
      profile: 'live',
      baseUrl: 'http://api.example.com',
      pollIntervals: { balancesMs: 10 },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.fields).toMatchObject({ 'pollIntervals.balancesMs': expect.stringMatching(/at least/) });
    expect(value(await d('settings.get', {}))).toMatchObject({
      profile: 'embedded',
      pollIntervals: { balancesMs: 60_000 },
    });
    expect(await d('settings.update', { nonsense: 1 } as never)).toMatchObject({
      ok: false,
      error: { kind: 'validation' },
    });
  });

  it('settings survive a restart of the core on the same data folder', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    value(
      await first.d('settings.update', {
        operatorName: 'Amina',
        pollIntervals: { balancesMs: 45_000 },
        redirectUrl: 'https://shop.example/pay/return',
      }),
    );
    await first.core.close();
    core = undefined;
    const second = await start(dataDir);
    expect(value(await second.d('settings.get', {}))).toMatchObject({
      operatorName: 'Amina',
      pollIntervals: { balancesMs: 45_000 },
      redirectUrl: 'https://shop.example/pay/return',
    });
  });
});

describe('sandbox profile with keys in the OS keychain', () => {
  it('connects with keys set through IPC, shows only set/not set, and writes no key into the data folder', async () => {
    const { d, dataDir } = await start();
    // "The sandbox profile": a second sandbox, its keys entered by hand as a user of the sandbox profile
    // would (switching profile stops the embedded one).
    const sb = await startSandbox({ stateDir: tempDir() });
    onTestFinished(() => sb.close());
    const pk = sb.publicKey;
    const sk = sb.secretKey;
    const gk = sb.signingKey;
    const pem = fs.readFileSync(sb.servicePublicKeyPath, 'utf8');

    value(await d('settings.update', { profile: 'sandbox', baseUrl: sb.baseUrl }));
    expect(value(await d('app.status', {}))).toMatchObject({
      profile: 'sandbox',
      connection: 'not_configured',
      keychain: 'available',
    });
    value(await d('settings.setKey', { name: 'publicKey', value: pk }));
    value(await d('settings.setKey', { name: 'secretKey', value: sk }));
    let view = value(await d('settings.setKey', { name: 'signingKey', value: gk }));
    expect(view.keys).toMatchObject({ publicKey: 'set', secretKey: 'set', signingKey: 'set', store: 'keychain' });
    expect(view.keys.maskedPublicKey).not.toBe(pk);
    view = value(await d('settings.importServiceKey', { pem }));
    expect(view.serviceKey).toMatchObject({ bits: 4096, source: 'imported' });
    expect(
      await d('settings.importServiceKey', { pem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }),
    ).toMatchObject({
      ok: false,
      error: { kind: 'validation', field: 'servicePublicKey' },
    });

    const b = value(await d('balances.refresh', {}));
    expect(b.lastError).toBeNull();
    expect(value(await d('app.status', {}))).toMatchObject({ profile: 'sandbox', connection: 'online' });
    expect(JSON.stringify(view)).not.toContain(sk);

    view = value(await d('settings.clearKey', { name: 'secretKey' }));
    expect(view.keys.secretKey).toBe('unset');
    expect(value(await d('app.status', {}))).toMatchObject({ connection: 'not_configured' });
    await d('settings.clearKey', { name: 'publicKey' });
    await d('settings.clearKey', { name: 'signingKey' });

    await core!.close();
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (p !== path.join(dataDir, 'sandbox')) walk(p); // the sandbox keeps its own copy, as the service would
        } else files.push(p);
      }
    };
    walk(dataDir);
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) {
      const bytes = fs.readFileSync(f);
      for (const k of [sk, gk]) expect(bytes.includes(Buffer.from(k)), `${k.slice(0, 4)}… found in ${f}`).toBe(false);
    }
  });
});

describe('callback receiver settings', () => {
  it('moves the receiver when its port changes, turns it off, and keeps the embedded sandbox pointed at it', async () => {
    const { core, d } = await start();
    const first = core.callbackReceiverUrl()!;
    value(await d('settings.update', { callbackReceiver: { port: 0, host: '127.0.0.1', enabled: false } }));
    expect(core.callbackReceiverUrl()).toBeNull();
    expect(controls(core).state().callback_url).toBeNull();
    const view = value(await d('settings.update', { callbackReceiver: { enabled: true } }));
    expect(view.callbackReceiverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callbacks\/collections$/);
    expect(controls(core).state().callback_url).toBe(view.callbackReceiverUrl);
    expect(first).toMatch(/callbacks\/collections$/);
    const bad = await d('settings.update', { callbackReceiver: { port: 70000 } });
    expect(bad).toMatchObject({ ok: false, error: { field: 'callbackReceiver.port' } });
  });
});

describe('each profile is a workspace of its own', () => {
  it("switching embedded -> sandbox shows only that profile's balances and collections; switching back shows the embedded ones, nothing lost", async () => {
    const { core, d, dataDir } = await start();
    value(await d('settings.update', { operatorName: 'Amina' }));
    const seen: string[] = [];
    pushToRenderer(core.events, (event, payload) => {
      if (event === 'app.profileChanged') seen.push((payload as { profile: string }).profile);
    });
    // The embedded profile's own data: a collection, and a wallet only its (stubbed) answer had.
    const now = Date.now();
    insertCollection(core.db, { reference: 'MD-EMBEDDED-0001', createdAt: now, status: 'COMPLETED' });
    recordBalanceRun(core.db, {
      startedAt: now,
      finishedAt: now,
      result: {
        ok: true,
        value: [
          {
            currency: 'EUR',
            walletType: 'MERCHANT_COLLECTION',
            availableMinor: 700,
            actualMinor: 700,
            unclearedMinor: 0,
            reserveMinor: 0,
          },
        ],
      },
    });
    expect(value(await d('balances.latest', {})).rows.map((r) => r.currency)).toContain('EUR');
    const embeddedCharges = core.charges();

    // "The sandbox profile": a second sandbox, its keys in the real keychain.
    const sb = await startSandbox({ stateDir: tempDir() });
    onTestFinished(() => sb.close());
    value(await d('settings.update', { profile: 'sandbox', baseUrl: sb.baseUrl }));
    expect(seen).toEqual(['sandbox']);
    expect(core.embedded()).toBeNull(); // the embedded sandbox was stopped with its workspace
    expect(core.db.name).toBe(path.join(dataDir, 'profiles', 'sandbox', 'merchant-desk.sqlite'));
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'active-profile.json'), 'utf8'))).toEqual({
      profile: 'sandbox',
    });
    expect(core.settings().operatorName).toBe('Amina'); // who is working carries over to a new profile
    value(await d('settings.setKey', { name: 'publicKey', value: sb.publicKey }));
    value(await d('settings.setKey', { name: 'secretKey', value: sb.secretKey }));
    value(await d('settings.setKey', { name: 'signingKey', value: sb.signingKey }));
    value(await d('settings.importServiceKey', { pem: fs.readFileSync(sb.servicePublicKeyPath, 'utf8') }));
    onTestFinished(async () => {
      for (const name of ['publicKey', 'secretKey', 'signingKey'] as const)
        await core
          .secrets()
          .delete(({ publicKey: 'public-key', secretKey: 'secret-key', signingKey: 'signing-key' } as const)[name])
          .catch(() => {});
    });

    const balances = value(await d('balances.refresh', {}));
    expect(balances.lastError).toBeNull();
    const sandboxBalances = value(await d('balances.latest', {}));
    expect(sandboxBalances.rows.length).toBeGreaterThan(0);
    expect(sandboxBalances.rows.map((r) => r.currency)).not.toContain('EUR');
    expect(value(await d('collections.list', {}))).toMatchObject({ total: 0 });
    expect(value(await d('reconcile.summary', {})).collections).toBe(0);
    expect(core.charges()).not.toBe(embeddedCharges); // a charge would land in this profile's database
    insertCollection(core.db, { reference: 'MD-SANDBOX-0001', createdAt: now, status: 'PENDING' });
    expect(value(await d('app.status', {}))).toMatchObject({ profile: 'sandbox', connection: 'online' });

    // Back to embedded: its sandbox starts again, its data is all there, the sandbox profile's is not.
    const view = value(await d('settings.update', { profile: 'embedded', baseUrl: sb.baseUrl }));
    expect(view).toMatchObject({ profile: 'embedded', baseUrl: null });
    expect(seen).toEqual(['sandbox', 'embedded']);
    expect(core.embedded()).not.toBeNull();
    expect(value(await d('collections.list', {})).rows.map((r) => r.merchantReference)).toEqual(['MD-EMBEDDED-0001']);
    expect(value(await d('balances.latest', {})).rows.map((r) => r.currency)).toContain('EUR');
    expect(value(await d('reconcile.summary', {})).collections).toBe(1);

    // And the sandbox profile kept its own settings and data.
    value(await d('settings.update', { profile: 'sandbox' }));
    expect(value(await d('settings.get', {}))).toMatchObject({
      profile: 'sandbox',
      baseUrl: sb.baseUrl,
      serviceKey: { source: 'imported' },
    });
    expect(value(await d('collections.list', {})).rows.map((r) => r.merchantReference)).toEqual(['MD-SANDBOX-0001']);
    expect(value(await d('balances.latest', {})).rows.map((r) => r.currency)).toEqual(
      sandboxBalances.rows.map((r) => r.currency),
    );
  });

  it("a switch the new profile's settings refuse changes nothing", async () => {
    const { core, d } = await start();
    const r = await d('settings.update', { profile: 'sandbox', baseUrl: null });
    expect(r).toMatchObject({ ok: false, error: { kind: 'validation', field: 'baseUrl' } });
    expect(value(await d('app.status', {}))).toMatchObject({ profile: 'embedded' });
    expect(core.embedded()).not.toBeNull();
  });

  it('the profile chosen last is the one the app opens next time', async () => {
    const dataDir = tempDir();
    const sb = await startSandbox({ stateDir: tempDir() });
    onTestFinished(() => sb.close());
    const first = await start(dataDir);
    value(await first.d('settings.update', { profile: 'sandbox', baseUrl: sb.baseUrl }));
    await first.core.close();
    const second = await start(dataDir);
    expect(value(await second.d('settings.get', {}))).toMatchObject({ profile: 'sandbox', baseUrl: sb.baseUrl });
    expect(second.core.embedded()).toBeNull();
  });
});
