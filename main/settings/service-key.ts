// Import of the service public key PEM: checked, then copied into the data folder so the app does not
// depend on where the original was. The check is loadServicePublicKey (main/service/service-key.ts)
// once it lands; until then a local equivalent with node:crypto.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';
import { dataPaths } from './paths.js';
import { SettingsError, updateSettings } from './settings.js';

export interface ServiceKeyInfo {
  /** Where the copy lives (inside the data folder). */
  path: string;
  bits: number;
  /** SHA-256 of the DER SubjectPublicKeyInfo, hex pairs separated by colons. */
  fingerprintSha256: string;
}

/** Checks that `pemText` is an RSA public key; throws SettingsError on field servicePublicKey. */
export function inspectServicePublicKey(pemText: string): { pem: string; bits: number; fingerprintSha256: string } {
  const text = pemText.trim();
  if (/PRIVATE KEY-----/.test(text)) {
    throw new SettingsError('servicePublicKey', 'is a private key; import the service PUBLIC key (-----BEGIN PUBLIC KEY-----)');
  }
  if (/BEGIN CERTIFICATE-----/.test(text)) {
    throw new SettingsError('servicePublicKey', 'is a certificate; import the service public key PEM (-----BEGIN PUBLIC KEY-----)');
  }
  if (!/-----BEGIN (RSA )?PUBLIC KEY-----/.test(text)) {
    throw new SettingsError('servicePublicKey', 'is not a PEM public key (expected -----BEGIN PUBLIC KEY-----)');
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey({ key: text, format: 'pem' });
  } catch {
    throw new SettingsError('servicePublicKey', 'could not be read as a PEM public key; the file is damaged or incomplete');
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new SettingsError('servicePublicKey', `is a ${key.asymmetricKeyType ?? 'non-RSA'} key; the service uses an RSA key`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) throw new SettingsError('servicePublicKey', `is only ${bits} bits; expected an RSA key of at least 2048 bits`);
  const der = key.export({ type: 'spki', format: 'der' });
  const hex = crypto.createHash('sha256').update(der).digest('hex').toUpperCase();
  const fingerprintSha256 = hex.match(/../g)!.join(':');
  const pem = key.export({ type: 'spki', format: 'pem' }).toString();
  return { pem, bits, fingerprintSha256 };
}

/** Reads the PEM at `file`, checks it, copies it to <dataDir>/service-public-key.pem and saves the setting. */
export function importServicePublicKeyFile(db: Db, dataDir: string, file: string, clock?: Clock): ServiceKeyInfo {
  let text: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) throw new SettingsError('servicePublicKey', `${file} is not a file`);
    if (st.size > 64 * 1024) throw new SettingsError('servicePublicKey', `${file} is too large to be a public key PEM`);
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof SettingsError) throw e;
    throw new SettingsError('servicePublicKey', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return importServicePublicKey(db, dataDir, text, clock);
}

/** Checks PEM text, writes the copy atomically and points servicePublicKeyPath at it. */
export function importServicePublicKey(db: Db, dataDir: string, pemText: string, clock?: Clock): ServiceKeyInfo {
  const info = inspectServicePublicKey(pemText);
  const target = dataPaths(dataDir).serviceKey;
  fs.mkdirSync(dataPaths(dataDir).dataDir, { recursive: true });
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, info.pem, { mode: 0o644 });
  fs.renameSync(tmp, target);
  updateSettings(db, { servicePublicKeyPath: target }, clock);
  return { path: target, bits: info.bits, fingerprintSha256: info.fingerprintSha256 };
}

/** The imported key's details, or null when none is imported or the file is gone. */
export function currentServicePublicKey(path: string | null): (ServiceKeyInfo & { pem: string }) | null {
  if (!path) return null;
  try {
    const info = inspectServicePublicKey(fs.readFileSync(path, 'utf8'));
    return { path, bits: info.bits, fingerprintSha256: info.fingerprintSha256, pem: info.pem };
  } catch {
    return null;
  }
}
