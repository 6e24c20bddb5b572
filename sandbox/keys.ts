// The sandbox's keys: an RSA-4096 pair (card cipher and RSA signatures), generated on first start
// and kept as PEM files in stateDir; and the merchant's public, secret and signing keys.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { getMeta, setMeta, writeFileAtomic, type SandboxDb } from './store.js';

const generateKeyPair = promisify(crypto.generateKeyPair);

export const PUBLIC_KEY_FILE = 'service_public_key.pem';
export const PRIVATE_KEY_FILE = 'service_private_key.pem';

export interface ServiceKeyPair {
  publicKeyPem: string;
  publicKeyPath: string;
  privateKey: crypto.KeyObject;
}

export async function loadOrCreateServiceKeys(stateDir: string): Promise<ServiceKeyPair> {
  const pubPath = path.join(stateDir, PUBLIC_KEY_FILE);
  const privPath = path.join(stateDir, PRIVATE_KEY_FILE);
  if (fs.existsSync(privPath)) {
    const privateKey = crypto.createPrivateKey(fs.readFileSync(privPath, 'utf8'));
    const publicKeyPem = crypto.createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
    if (!fs.existsSync(pubPath) || fs.readFileSync(pubPath, 'utf8') !== publicKeyPem)
      writeFileAtomic(pubPath, publicKeyPem);
    return { publicKeyPem, publicKeyPath: pubPath, privateKey };
  }
  const { publicKey, privateKey } = await generateKeyPair('rsa', { modulusLength: 4096 });
  const privPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  writeFileAtomic(privPath, privPem, 0o600);
  writeFileAtomic(pubPath, publicKeyPem);
  return { publicKeyPem, publicKeyPath: pubPath, privateKey };
}

export interface MerchantKeys {
  publicKey: string;
  secretKey: string;
  signingKey: string;
  merchantName: string;
}

export function loadOrCreateMerchantKeys(db: SandboxDb): MerchantKeys {
  return db.transaction(() => {
    let publicKey = getMeta(db, 'public_key');
    let secretKey = getMeta(db, 'secret_key');
    let signingKey = getMeta(db, 'signing_key');
    if (!publicKey || !secretKey || !signingKey) {
      publicKey = `PK-SBX-${crypto.randomBytes(16).toString('hex').toUpperCase()}`;
      secretKey = `SK-SBX-${crypto.randomBytes(24).toString('hex').toUpperCase()}`;
      signingKey = crypto.randomBytes(32).toString('hex');
      setMeta(db, 'public_key', publicKey);
      setMeta(db, 'secret_key', secretKey);
      setMeta(db, 'signing_key', signingKey);
    }
    return { publicKey, secretKey, signingKey, merchantName: 'Sandbox Merchant Ltd' };
  })();
}

/** Constant-time string comparison for keys. */
export function sameKey(given: string | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}
