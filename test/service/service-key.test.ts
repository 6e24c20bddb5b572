import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServicePublicKey, loadServicePublicKeyFile } from '../../main/service/service-key.js';
import { ServiceKeyError } from '../../main/service/errors.js';
import { tempDir } from '../support/tmp.js';
import { openssl, opensslFingerprint, opensslRsaKey } from './openssl.js';

describe('loadServicePublicKey', () => {
  it('describes an RSA-4096 public key made by openssl: bits, openssl fingerprint, plaintext limit', () => {
    const key = opensslRsaKey(tempDir(), 4096);
    const k = loadServicePublicKey(key.publicPem);
    expect(k.bits).toBe(4096);
    expect(k.maxPlaintextBytes).toBe(501);
    expect(k.fingerprintSha256).toBe(opensslFingerprint(key.publicPath));
    expect(k.fingerprintSha256).toMatch(/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/);
    expect(loadServicePublicKeyFile(key.publicPath).fingerprintSha256).toBe(k.fingerprintSha256);
  });

  it('accepts the PKCS#1 "RSA PUBLIC KEY" form and CRLF line ends', () => {
    const dir = tempDir();
    const key = opensslRsaKey(dir, 2048);
    const pkcs1 = openssl(['rsa', '-pubin', '-in', key.publicPath, '-RSAPublicKey_out']).toString('utf8');
    expect(pkcs1).toMatch(/BEGIN RSA PUBLIC KEY/);
    const a = loadServicePublicKey(pkcs1);
    expect(a.bits).toBe(2048);
    expect(a.fingerprintSha256).toBe(opensslFingerprint(key.publicPath));
    expect(loadServicePublicKey(key.publicPem.replace(/\n/g, '\r\n')).bits).toBe(2048);
  });

  it('refuses a private key, a certificate, garbage, a damaged key, a non-RSA key and a short key, saying what to do', () => {
    const dir = tempDir();
    const key = opensslRsaKey(dir, 2048);
    const priv = fs.readFileSync(key.privatePath, 'utf8');
    expect(() => loadServicePublicKey(priv)).toThrow(/private key.*PUBLIC key/);

    const certPath = path.join(dir, 'cert.pem');
    openssl(['req', '-x509', '-key', key.privatePath, '-subj', '/CN=test', '-days', '1', '-out', certPath]);
    expect(() => loadServicePublicKey(fs.readFileSync(certPath, 'utf8'))).toThrow(/certificate, not a public key/);

    expect(() => loadServicePublicKey('hello')).toThrow(/not a PEM public key/);
    expect(() => loadServicePublicKey('')).toThrow(/empty/);
    const damaged = key.publicPem.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!');
    expect(() => loadServicePublicKey(damaged)).toThrow(/cannot be read/);

    const ecPriv = path.join(dir, 'ec.pem');
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', ecPriv]);
    const ecPub = openssl(['pkey', '-in', ecPriv, '-pubout']).toString('utf8');
    expect(() => loadServicePublicKey(ecPub)).toThrow(/must be an RSA key; this one is ec/);

    const short = opensslRsaKey(dir, 1024, 'short');
    expect(() => loadServicePublicKey(short.publicPem)).toThrow(/only 1024 bits/);
    expect(() => loadServicePublicKey(short.publicPem)).toThrow(ServiceKeyError);
  });

  it('names the file when it is missing or wrong', () => {
    const dir = tempDir();
    expect(() => loadServicePublicKeyFile(path.join(dir, 'nope.pem'))).toThrow(/nope\.pem does not exist/);
    fs.writeFileSync(path.join(dir, 'bad.pem'), 'not a key');
    expect(() => loadServicePublicKeyFile(path.join(dir, 'bad.pem'))).toThrow(/bad\.pem: This is not a PEM public key/);
  });
});
