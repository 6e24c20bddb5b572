// Runs against the real OS keychain: bash scripts/with-keyring.sh npx vitest run test/secrets
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import {
  KeyringSecretStore,
  MemorySecretStore,
  SecretValueError,
  secretStatus,
  secretStoreFor,
  keychainService,
} from '../../main/secrets/index.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { updateSettings } from '../../main/settings/index.js';
import { createLogger } from '../../main/log/index.js';

const unique = () => `${process.pid}-${Math.random().toString(36).slice(2)}`;
const stores: KeyringSecretStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0))
    for (const n of ['public-key', 'secret-key', 'signing-key'] as const) await s.delete(n).catch(() => {});
});

function keyring(profile: 'sandbox' | 'live', service = `merchant-desk-test-${unique()}`) {
  const s = new KeyringSecretStore(profile, service);
  stores.push(s);
  return s;
}

describe('KeyringSecretStore (real keychain)', () => {
  it('stores, reads back and deletes keys, scoped by profile', async () => {
    const service = `merchant-desk-test-${unique()}`;
    const sandbox = keyring('sandbox', service);
    const live = keyring('live', service);
    expect(await sandbox.probe()).toEqual({ available: true });
    expect(await sandbox.get('secret-key')).toBeNull();
    await sandbox.set('secret-key', 'sk_sandbox_123456');
    await live.set('secret-key', 'sk_live_abcdef');
    expect(await sandbox.get('secret-key')).toBe('sk_sandbox_123456');
    expect(await live.get('secret-key')).toBe('sk_live_abcdef');
    // A second instance (e.g. after a restart) sees the same keys.
    expect(await new KeyringSecretStore('sandbox', service).get('secret-key')).toBe('sk_sandbox_123456');
    await sandbox.delete('secret-key');
    await sandbox.delete('secret-key'); // deleting what is not there is fine
    expect(await sandbox.get('secret-key')).toBeNull();
    expect(await live.get('secret-key')).toBe('sk_live_abcdef');
  });

  it('uses service "merchant-desk" (or MERCHANT_DESK_KEYCHAIN_SERVICE) and account "<profile>:<name>" by default', async () => {
    const { AsyncEntry } = await import('@napi-rs/keyring');
    expect(keychainService({})).toBe('merchant-desk');
    expect(keychainService({ MERCHANT_DESK_KEYCHAIN_SERVICE: 'merchant-desk-second' })).toBe('merchant-desk-second');
    // test/support/setup.ts gives this file its own service name, so parallel test files never share entries.
    const service = process.env.MERCHANT_DESK_KEYCHAIN_SERVICE!;
    expect(service).toMatch(/^merchant-desk-test-/);
    const store = new KeyringSecretStore('sandbox');
    stores.push(store);
    await store.set('public-key', 'pk_default_scope_1');
    expect(await new AsyncEntry(service, 'sandbox:public-key').getPassword()).toBe('pk_default_scope_1');
    expect(await new AsyncEntry('merchant-desk', 'sandbox:public-key').getPassword()).toBeNull();
  });

  it('refuses values that cannot be keys, naming the key but not echoing the value', async () => {
    const store = keyring('sandbox');
    await expect(store.set('secret-key', '   ')).rejects.toThrow(SecretValueError);
    const err = (await store.set('secret-key', 'sk has spaces').catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^secret-key: contains spaces/);
    expect(err.message).not.toContain('sk has spaces');
    expect(await store.get('secret-key')).toBeNull();
  });

  it('the renderer view shows only set/unset and a masked public key', async () => {
    const store = keyring('live');
    await store.set('public-key', 'pk_live_0123456789abcdef');
    await store.set('signing-key', 'sig_live_secret');
    const status = await secretStatus(store);
    expect(status).toEqual({
      publicKey: 'set',
      secretKey: 'unset',
      signingKey: 'set',
      maskedPublicKey: 'pk_l…cdef',
      store: 'keychain',
      available: true,
    });
    expect(JSON.stringify(status)).not.toContain('sig_live_secret');
  });

  it('says plainly when the keychain is unavailable, and stores nothing anywhere else', () => {
    // A separate process whose session bus does not exist (the keychain connection is per process).
    const dir = tempDir();
    const script = path.join(dir, 'probe.mts');
    const mod = pathToFileURL(path.resolve('main/secrets/index.ts')).href;
    fs.writeFileSync(
      script,
      `import { KeyringSecretStore, secretStatus } from ${JSON.stringify(mod)};
       const store = new KeyringSecretStore('live', 'merchant-desk-test-unavailable');
       const probe = await store.probe();
       const set = await store.set('secret-key', 'sk_live_never_stored').then(() => 'stored', (e) => e.name + ': ' + e.message);
       const status = await secretStatus(store);
       console.log(JSON.stringify({ probe, set, status }));`,
    );
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(dir, 'no-bus')}` },
      cwd: process.cwd(),
    }).toString();
    const r = JSON.parse(out.trim().split('\n').pop()!) as {
      probe: { available: boolean; reason: string };
      set: string;
      status: { available: boolean };
    };
    expect(r.probe.available).toBe(false);
    expect(r.probe.reason).toMatch(/OS keychain is not available, so keys cannot be stored safely/);
    expect(r.set).toMatch(/^SecretStoreUnavailableError: the OS keychain is not available/);
    expect(r.set).not.toContain('sk_live_never_stored');
    expect(r.status.available).toBe(false);
    expect(fs.readdirSync(dir)).toEqual(['probe.mts']);
  });

  it('after a run no key appears in any file of the data folder', async () => {
    const dir = tempDir();
    const db = openDatabase(path.join(dir, 'merchant-desk.sqlite'));
    const log = createLogger({ dataDir: dir, level: 'debug' });
    const store = keyring('sandbox');
    const keys = {
      'public-key': 'pk_sb_7f3a9c1e55d2',
      'secret-key': 'sk_sb_0b8d4e6f2a19',
      'signing-key': 'sig_sb_c4e8a2b6d0f1',
    } as const;
    for (const [name, value] of Object.entries(keys)) await store.set(name as keyof typeof keys, value);
    updateSettings(db, { profile: 'sandbox', baseUrl: 'http://127.0.0.1:9' });
    log.info({ keys, secretKey: keys['secret-key'] }, 'keys saved');
    log.info(await secretStatus(store), 'status');
    db.close();
    const files = walk(dir);
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) {
      const bytes = fs.readFileSync(f);
      for (const v of Object.values(keys)) expect(bytes.includes(Buffer.from(v)), `${v} in ${f}`).toBe(false);
    }
  });
});

describe('secretStoreFor', () => {
  it('keeps the embedded profile in memory and uses the keychain for sandbox and live', async () => {
    const mem = new MemorySecretStore({ 'public-key': 'pk_embedded_1' });
    expect(secretStoreFor('embedded', mem)).toBe(mem);
    expect(await secretStoreFor('embedded', mem).get('public-key')).toBe('pk_embedded_1');
    expect(secretStoreFor('live').kind).toBe('keychain');
    expect(secretStoreFor('sandbox').kind).toBe('keychain');
  });
});

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}
