// Import of the service public key PEM: checked with loadServicePublicKey (main/service/service-key.ts),
// then copied into the data folder so the app does not depend on where the original was.
import fs from 'node:fs';
import type { Db } from '../store/sqlite/connection.js';
import type { Clock } from '../clock.js';
import { dataPaths } from './paths.js';
import { loadServicePublicKey } from '../service/service-key.js';
import { ServiceKeyError } from '../service/errors.js';
import { loadSettings, SettingsError, updateSettings } from './settings.js';

export interface ServiceKeyInfo {
  /** Where the copy lives (inside the data folder). */
  path: string;
  bits: number;
  /** SHA-256 of the DER SubjectPublicKeyInfo, lower-case hex pairs separated by colons. */
  fingerprintSha256: string;
}

/** Checks that `pemText` is an RSA public key (loadServicePublicKey); throws SettingsError on field servicePublicKey. */
export function inspectServicePublicKey(pemText: string): { pem: string; bits: number; fingerprintSha256: string } {
  try {
    const k = loadServicePublicKey(pemText);
    return { pem: k.pem + '\n', bits: k.bits, fingerprintSha256: k.fingerprintSha256 };
  } catch (e) {
    if (e instanceof ServiceKeyError) throw new SettingsError('servicePublicKey', e.message);
    throw e;
  }
}

/** Reads the PEM at `file`, checks it, copies it to <dataDir>/profiles/<profile>/service-public-key.pem and saves the setting. */
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

/** Checks PEM text, writes the copy atomically (in the folder of the profile `db` belongs to) and points servicePublicKeyPath at it. */
export function importServicePublicKey(db: Db, dataDir: string, pemText: string, clock?: Clock): ServiceKeyInfo {
  const info = inspectServicePublicKey(pemText);
  const paths = dataPaths(dataDir, loadSettings(db).profile);
  const target = paths.serviceKey;
  fs.mkdirSync(paths.profileDir, { recursive: true });
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, info.pem, { mode: 0o644 });
  fs.renameSync(tmp, target);
  updateSettings(db, { servicePublicKeyPath: target }, clock);
  return { path: target, bits: info.bits, fingerprintSha256: info.fingerprintSha256 };
}

/** The imported key's details, or null when none is imported or the file is gone. */
// Callers ask on every callback group and every charge: keep the parsed key until the file changes.
let cached: { path: string; mtimeMs: number; size: number; key: ServiceKeyInfo & { pem: string } } | null = null;

export function currentServicePublicKey(path: string | null): (ServiceKeyInfo & { pem: string }) | null {
  if (!path) return null;
  try {
    const st = fs.statSync(path);
    if (cached && cached.path === path && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.key;
    const info = inspectServicePublicKey(fs.readFileSync(path, 'utf8'));
    const key = { path, bits: info.bits, fingerprintSha256: info.fingerprintSha256, pem: info.pem };
    cached = { path, mtimeMs: st.mtimeMs, size: st.size, key };
    return key;
  } catch {
    return null;
  }
}
