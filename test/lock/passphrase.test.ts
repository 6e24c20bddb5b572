// The solo lock passphrase: a slow salted hash, never the passphrase, checked in constant time; stored
// in the real OS keychain (run under scripts/with-keyring.sh).
import { AsyncEntry } from '@napi-rs/keyring';
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassphrase, StoredHashError, verifyPassphrase } from '../../main/lock/passphrase-hash.js';
import { PassphraseUnlocker } from '../../main/lock/unlocker.js';
import { KeyringAppSecret, MemoryAppSecret, keychainService } from '../../main/secrets/index.js';

// Cheap parameters keep the suite fast; the default ones are exercised once below.
const FAST = { N: 2 ** 10, r: 8, p: 1 };

describe('passphrase hash', () => {
  it('is scrypt with its parameters and a random salt in the string, and never contains the passphrase', async () => {
    const a = await hashPassphrase('correct horse battery', FAST);
    const b = await hashPassphrase('correct horse battery', FAST);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b); // salted
    for (const h of [a, b]) {
      expect(h).not.toContain('correct horse battery');
      expect(Buffer.from(h.split('$')[5]!, 'base64').toString('utf8')).not.toContain('correct');
    }
    expect(await verifyPassphrase('correct horse battery', a)).toBe(true);
    expect(await verifyPassphrase('correct horse batterY', a)).toBe(false);
    expect(await verifyPassphrase('', a)).toBe(false);
  });

  it('uses N=2^15 by default', async () => {
    const h = await hashPassphrase('a passphrase of sorts');
    expect(h.split('$').slice(0, 4)).toEqual(['scrypt', '32768', '8', '1']);
    expect(await verifyPassphrase('a passphrase of sorts', h)).toBe(true);
  });

  it('refuses a stored hash that is malformed or asks for absurd work, instead of answering "wrong"', async () => {
    const h = await hashPassphrase('whatever you like', FAST);
    const parts = h.split('$');
    await expect(verifyPassphrase('whatever you like', 'plain-text')).rejects.toThrow(StoredHashError);
    await expect(verifyPassphrase('x', ['scrypt', 2 ** 30, 8, 1, parts[4], parts[5]].join('$'))).rejects.toThrow(
      StoredHashError,
    );
    await expect(verifyPassphrase('x', ['scrypt', 1000, 8, 1, parts[4], parts[5]].join('$'))).rejects.toThrow(
      StoredHashError,
    );
    await expect(verifyPassphrase('x', ['scrypt', 1024, 8, 1, '', parts[5]].join('$'))).rejects.toThrow(
      StoredHashError,
    );
  });
});

describe('PassphraseUnlocker', () => {
  it('is set on first use only, with at least 8 characters, and checks the passphrase', async () => {
    const store = new MemoryAppSecret();
    const u = new PassphraseUnlocker(store, FAST);
    expect(await u.needsSetup()).toBe(true);
    expect(await u.verify('anything at all')).toBe(false);
    await expect(u.setUp('short')).rejects.toMatchObject({ kind: 'validation', field: 'passphrase' });
    await u.setUp('open sesame!');
    expect(await u.needsSetup()).toBe(false);
    expect(await store.get()).not.toContain('open sesame!');
    expect(await u.verify('open sesame!')).toBe(true);
    expect(await u.verify('open sesame?')).toBe(false);
    // A second "first use" would let anyone at the desk replace it.
    await expect(u.setUp('another passphrase')).rejects.toMatchObject({ kind: 'conflict' });
    expect(await u.verify('open sesame!')).toBe(true);
  });
});

describe('KeyringAppSecret (real keychain)', () => {
  const service = `${keychainService()}-lock`;
  const secret = new KeyringAppSecret('lock-passphrase', service);
  afterEach(async () => {
    await secret.delete().catch(() => {});
  });

  it('keeps only the hash, in the keychain entry app:lock-passphrase of the service', async () => {
    const u = new PassphraseUnlocker(secret, FAST);
    await u.setUp('keychain passphrase');
    const raw = await new AsyncEntry(service, 'app:lock-passphrase', {
      linux: { store: 'secret-service' },
    }).getPassword();
    expect(raw).toMatch(/^scrypt\$/);
    expect(raw).not.toContain('keychain passphrase');
    expect(
      await new PassphraseUnlocker(new KeyringAppSecret('lock-passphrase', service)).verify('keychain passphrase'),
    ).toBe(true);
  });
});
