import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import {
  currentServicePublicKey,
  DEFAULT_REDIRECT_URL,
  importServicePublicKeyFile,
  loadSettings,
  readSettings,
  SettingsError,
  updateSettings,
} from '../../main/settings/index.js';

function setup() {
  const dir = tempDir();
  const file = path.join(dir, 'md.sqlite');
  return { dir, file, db: openDatabase(file) };
}

function settingsError(fn: () => unknown): SettingsError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SettingsError) return e;
    throw e;
  }
  throw new Error('expected a SettingsError');
}

describe('settings', () => {
  it('has defaults for a fresh data folder', () => {
    const s = loadSettings(setup().db);
    expect(s).toMatchObject({
      profile: 'embedded',
      baseUrl: null,
      redirectUrl: DEFAULT_REDIRECT_URL,
      callbackReceiver: { enabled: true, host: '127.0.0.1', port: 0 },
      pollIntervals: { balancesMs: 60_000, providersMs: 900_000 },
      servicePublicKeyPath: null,
    });
    expect(s.operatorName.length).toBeGreaterThan(0);
  });

  it('saves a partial update (nested objects merged) that survives reopening the database', () => {
    const { db, file } = setup();
    updateSettings(db, { profile: 'sandbox', baseUrl: 'http://127.0.0.1:4010', pollIntervals: { balancesMs: 30_000 } });
    db.close();
    const s = loadSettings(openDatabase(file));
    expect(s.profile).toBe('sandbox');
    expect(s.baseUrl).toBe('http://127.0.0.1:4010');
    expect(s.pollIntervals).toEqual({ balancesMs: 30_000, providersMs: 900_000 });
  });

  it('names the field at fault and writes nothing when any part is invalid', () => {
    const { db } = setup();
    const e1 = settingsError(() =>
      updateSettings(db, { redirectUrl: 'http://shop.example.com/return', operatorName: 'ann' }),
    );
    expect(e1.field).toBe('redirectUrl');
    expect(e1.message).toMatch(/redirectUrl must be an https:\/\/ URL/);
    expect(loadSettings(db).operatorName).not.toBe('ann');
    expect(settingsError(() => updateSettings(db, { callbackReceiver: { port: 70000 } })).field).toBe(
      'callbackReceiver.port',
    );
    expect(settingsError(() => updateSettings(db, { pollIntervals: { balancesMs: 10 } })).message).toMatch(
      /pollIntervals.balancesMs must be at least 5000 ms/,
    );
    expect(
      settingsError(() => updateSettings(db, { profile: 'live', baseUrl: 'http://api.example.com' })).message,
    ).toMatch(/baseUrl must be an https:\/\/ URL for the live profile/);
    expect(settingsError(() => updateSettings(db, { profile: 'sandbox' })).message).toMatch(
      /baseUrl is required for the sandbox profile/,
    );
    expect(settingsError(() => updateSettings(db, { baseUrl: 'ftp://x' })).field).toBe('baseUrl');
    expect(settingsError(() => updateSettings(db, { profile: 'staging' as never })).message).toMatch(
      /profile must be embedded, sandbox, live or team/,
    );
    expect(db.prepare('SELECT COUNT(*) AS n FROM settings').get()).toEqual({ n: 0 });
  });

  it('a damaged stored value falls back to its default, is reported, and the others still load', () => {
    const { db } = setup();
    updateSettings(db, { operatorName: 'ann', staleAfterMs: 120_000 });
    db.prepare("UPDATE settings SET value = '\"soon\"' WHERE key = 'staleAfterMs'").run();
    const { settings, problems } = readSettings(db);
    expect(settings.operatorName).toBe('ann');
    expect(settings.staleAfterMs).toBe(180_000);
    expect(problems).toEqual([
      { field: 'staleAfterMs', message: expect.stringMatching(/staleAfterMs .*using the default/) },
    ]);
  });
});

describe('stored settings from outside (issue 39)', () => {
  // Anyone with the data folder can write a setting's row: a value nested past what any setting needs, or
  // larger, is read as the damaged value it is, before a parser or a schema runs on it.
  it('a value nested or sized past the limits falls back to its default, named, and the others still load', () => {
    const { db } = setup();
    updateSettings(db, { operatorName: 'ann', staleAfterMs: 120_000, idleLockMinutes: 10 });
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    db.prepare("UPDATE settings SET value = ? WHERE key = 'staleAfterMs'").run(deep);
    db.prepare("UPDATE settings SET value = ? WHERE key = 'idleLockMinutes'").run(JSON.stringify('x'.repeat(300_000)));
    const { settings, problems } = readSettings(db);
    expect(settings.operatorName).toBe('ann');
    expect(settings.staleAfterMs).toBe(180_000);
    expect(settings.idleLockMinutes).toBe(15);
    expect(problems).toEqual([
      {
        field: 'staleAfterMs',
        message: 'staleAfterMs: the stored value is nested more than 8 levels deep; using the default',
      },
      {
        field: 'idleLockMinutes',
        message: 'idleLockMinutes: the stored value is 300002 bytes, more than the 262144 allowed; using the default',
      },
    ]);
  });
});

describe('service public key import', () => {
  function openssl(args: string[], cwd: string) {
    execFileSync('openssl', args, { cwd, stdio: 'pipe' });
  }

  it('checks an RSA public key, copies it into the data folder and shows size and fingerprint', () => {
    const { db, dir } = setup();
    const keys = tempDir();
    openssl(['genrsa', '-out', 'priv.pem', '2048'], keys);
    openssl(['rsa', '-in', 'priv.pem', '-pubout', '-out', 'pub.pem'], keys);
    const der = execFileSync('openssl', ['rsa', '-in', 'priv.pem', '-pubout', '-outform', 'DER'], {
      cwd: keys,
      stdio: 'pipe',
    });
    const expected = execFileSync('openssl', ['dgst', '-sha256', '-c'], { input: der })
      .toString()
      .split('= ')[1]!
      .trim();
    const info = importServicePublicKeyFile(db, dir, path.join(keys, 'pub.pem'));
    expect(info.bits).toBe(2048);
    expect(info.fingerprintSha256).toBe(expected);
    expect(info.path.startsWith(dir)).toBe(true);
    fs.rmSync(path.join(keys, 'pub.pem')); // the original can go away
    expect(loadSettings(db).servicePublicKeyPath).toBe(info.path);
    expect(currentServicePublicKey(info.path)?.fingerprintSha256).toBe(expected);
  });

  it('refuses a private key, a missing file and garbage, naming servicePublicKey, and keeps the previous key', () => {
    const { db, dir } = setup();
    const keys = tempDir();
    openssl(['genrsa', '-out', 'priv.pem', '2048'], keys);
    fs.writeFileSync(path.join(keys, 'junk.pem'), '-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n');
    expect(settingsError(() => importServicePublicKeyFile(db, dir, path.join(keys, 'priv.pem'))).message).toMatch(
      /servicePublicKey: .*private key/,
    );
    expect(settingsError(() => importServicePublicKeyFile(db, dir, path.join(keys, 'junk.pem'))).field).toBe(
      'servicePublicKey',
    );
    expect(settingsError(() => importServicePublicKeyFile(db, dir, path.join(keys, 'none.pem'))).message).toMatch(
      /cannot read .*ENOENT/,
    );
    expect(loadSettings(db).servicePublicKeyPath).toBeNull();
    expect(fs.existsSync(path.join(dir, 'service-public-key.pem'))).toBe(false);
  });
});
