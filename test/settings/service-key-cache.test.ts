import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { currentServicePublicKey } from '../../main/settings/service-key.js';

function rsaPublicPem(dir: string, name: string, bits: number): string {
  execFileSync('openssl', ['genrsa', '-out', `${name}.key`, String(bits)], { cwd: dir, stdio: 'pipe' });
  execFileSync('openssl', ['rsa', '-in', `${name}.key`, '-pubout', '-out', `${name}.pub`], { cwd: dir, stdio: 'pipe' });
  return fs.readFileSync(path.join(dir, `${name}.pub`), 'utf8');
}

describe('the current service public key', () => {
  it('follows the key file: a replaced key is used at once, a removed one is gone', () => {
    const dir = tempDir();
    const file = path.join(dir, 'service-key.pem');
    fs.writeFileSync(file, rsaPublicPem(dir, 'a', 2048));
    const first = currentServicePublicKey(file);
    expect(first?.bits).toBe(2048);
    expect(currentServicePublicKey(file)?.fingerprintSha256).toBe(first?.fingerprintSha256);

    // A new key imported over the old file (different size, so different even within one mtime tick).
    fs.writeFileSync(file, rsaPublicPem(dir, 'b', 3072));
    const second = currentServicePublicKey(file);
    expect(second?.bits).toBe(3072);
    expect(second?.fingerprintSha256).not.toBe(first?.fingerprintSha256);

    fs.rmSync(file);
    expect(currentServicePublicKey(file)).toBeNull();
    expect(currentServicePublicKey(null)).toBeNull();
  });
});
