// The local lock passphrase is kept only as a slow, salted hash: scrypt, with its cost parameters and
// salt written into the stored string so they can be raised later without breaking stored hashes.
//   scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>
import crypto from 'node:crypto';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** About 100 ms and 32 MiB on a laptop: cheap for one unlock, expensive for guessing. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;
// Refuse stored parameters that would make a check take minutes or gigabytes (a tampered entry).
const MAX_N = 2 ** 20;
const MAX_RP = 64;

function scrypt(secret: string, salt: Buffer, params: ScryptParams, keyLen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    crypto.scrypt(
      secret.normalize('NFC'),
      salt,
      keyLen,
      { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

export async function hashPassphrase(passphrase: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const key = await scrypt(passphrase, salt, params, KEY_BYTES);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A stored hash that cannot be read: a programming or tampering problem, never a wrong passphrase. */
export class StoredHashError extends Error {
  override name = 'StoredHashError';
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt')
    throw new StoredHashError('the stored lock passphrase hash is not in the scrypt format');
  const [N, r, p] = parts.slice(1, 4).map((x) => Number(x)) as [number, number, number];
  const ok = (n: number, max: number) => Number.isSafeInteger(n) && n >= 1 && n <= max;
  if (!ok(N, MAX_N) || (N & (N - 1)) !== 0 || !ok(r, MAX_RP) || !ok(p, MAX_RP)) {
    throw new StoredHashError('the stored lock passphrase hash has parameters out of range');
  }
  const salt = Buffer.from(parts[4]!, 'base64');
  const key = Buffer.from(parts[5]!, 'base64');
  if (salt.length < 8 || key.length < 16) throw new StoredHashError('the stored lock passphrase hash is truncated');
  return { params: { N, r, p }, salt, key };
}

/** Whether `passphrase` matches `stored`; the comparison takes the same time wherever they differ. */
export async function verifyPassphrase(passphrase: string, stored: string): Promise<boolean> {
  const { params, salt, key } = parse(stored);
  const candidate = await scrypt(passphrase, salt, params, key.length);
  return crypto.timingSafeEqual(candidate, key);
}
