// Verifying the signatures of callbacks and redirects (DESIGN.md "signatures").
// Signed string: event:merchant_reference:internal_reference:transaction_type:transaction_status.
// hmac-signature: t=<unix seconds>,s=<hex HMAC-SHA256 with the merchant signing key>.
// rsa-signature: base64 RSA-SHA512 PKCS#1 v1.5, verified with the service public key.
// Either valid is enough. Comparisons are constant-time. Results say why a check failed.
import crypto from 'node:crypto';
import type { SignedFields } from './types.js';
import type { ServicePublicKey } from './service-key.js';

export function signedString(f: SignedFields): string {
  return [f.event, f.merchant_reference, f.internal_reference, f.transaction_type, f.transaction_status].join(':');
}

export interface CheckResult {
  /** valid / invalid; missing = no signature given; unverifiable = given, but no key to check it with. */
  state: 'valid' | 'invalid' | 'missing' | 'unverifiable';
  reason?: string;
  /** hmac only: the t= value (unix seconds), when it could be read. Note t is not covered by the MAC. */
  timestamp?: number;
}

export interface HmacOptions {
  /** Unix ms; with toleranceS, a t= further than toleranceS from now is rejected. */
  now?: number;
  toleranceS?: number;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** Checks an `hmac-signature` header (`t=<unix s>,s=<hex>`) over `signed` with the merchant signing key. */
export function verifyHmacHeader(
  header: string | null | undefined,
  signed: string,
  signingKey: string | null | undefined,
  opts: HmacOptions = {},
): CheckResult {
  if (header === undefined || header === null || header.trim() === '')
    return { state: 'missing', reason: 'no hmac-signature' };
  if (!signingKey) return { state: 'unverifiable', reason: 'no signing key is configured to check hmac-signature' };
  const parts = new Map<string, string>();
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return { state: 'invalid', reason: 'hmac-signature is malformed (expected t=<unix seconds>,s=<hex>)' };
    const k = part.slice(0, eq).trim();
    if (parts.has(k)) return { state: 'invalid', reason: `hmac-signature has ${k}= twice` };
    parts.set(k, part.slice(eq + 1).trim());
  }
  const t = parts.get('t');
  const s = parts.get('s');
  if (t === undefined || s === undefined)
    return { state: 'invalid', reason: 'hmac-signature is malformed (expected t=<unix seconds>,s=<hex>)' };
  if (!/^\d{1,12}$/.test(t)) return { state: 'invalid', reason: 'hmac-signature t= is not a unix time in seconds' };
  const timestamp = Number(t);
  if (!HEX64.test(s)) return { state: 'invalid', reason: 'hmac-signature s= is not 64 hex digits', timestamp };
  const expected = crypto.createHmac('sha256', signingKey).update(signed, 'utf8').digest();
  const given = Buffer.from(s, 'hex');
  if (!crypto.timingSafeEqual(expected, given)) {
    return {
      state: 'invalid',
      reason: 'hmac-signature does not match (wrong signing key, or the signed fields were changed)',
      timestamp,
    };
  }
  if (opts.toleranceS !== undefined) {
    const nowS = Math.floor((opts.now ?? Date.now()) / 1000);
    if (Math.abs(nowS - timestamp) > opts.toleranceS) {
      return {
        state: 'invalid',
        reason: `hmac-signature t= is ${nowS - timestamp} s from now (tolerance ${opts.toleranceS} s)`,
        timestamp,
      };
    }
  }
  return { state: 'valid', timestamp };
}

/**
 * Checks an `rsa-signature` (base64 RSA-SHA512 PKCS#1 v1.5) over `signed` with the service public key.
 * Liberal about transport damage: base64url and spaces (a '+' decoded as ' ' from a query string) are accepted.
 */
export function verifyRsaSignature(
  b64: string | null | undefined,
  signed: string,
  publicKey: string | ServicePublicKey | crypto.KeyObject | null | undefined,
): CheckResult {
  if (b64 === undefined || b64 === null || b64.trim() === '') return { state: 'missing', reason: 'no rsa-signature' };
  if (!publicKey)
    return { state: 'unverifiable', reason: 'no service public key is configured to check rsa-signature' };
  let key: crypto.KeyObject;
  try {
    key =
      typeof publicKey === 'string'
        ? crypto.createPublicKey(publicKey)
        : publicKey instanceof crypto.KeyObject
          ? publicKey
          : publicKey.key;
  } catch {
    return { state: 'unverifiable', reason: 'the service public key cannot be read' };
  }
  const text = b64.trim().replace(/ /g, '+').replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return { state: 'invalid', reason: 'rsa-signature is not base64' };
  const sig = Buffer.from(text, 'base64');
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (bits !== undefined && sig.length !== Math.ceil(bits / 8)) {
    return {
      state: 'invalid',
      reason: `rsa-signature is ${sig.length} bytes; the service key makes ${Math.ceil(bits / 8)}`,
    };
  }
  let ok: boolean;
  try {
    ok = crypto.verify(
      'sha512',
      Buffer.from(signed, 'utf8'),
      { key, padding: crypto.constants.RSA_PKCS1_PADDING },
      sig,
    );
  } catch {
    ok = false;
  }
  return ok
    ? { state: 'valid' }
    : { state: 'invalid', reason: 'rsa-signature does not match (other key, or the signed fields were changed)' };
}

export interface SignatureKeys {
  /** The merchant signing key (HMAC). */
  signingKey?: string | null;
  /** The service public key (RSA), PEM or loaded. */
  servicePublicKey?: string | ServicePublicKey | crypto.KeyObject | null | undefined;
}

export interface SignatureVerdict {
  /** verified: at least one signature is valid. invalid: a signature was checked and none is valid. missing: nothing could be checked. */
  state: 'verified' | 'invalid' | 'missing';
  hmac: CheckResult;
  rsa: CheckResult;
  /** Why it is not verified (both checks' reasons). */
  reason?: string;
}

/** Both checks; either valid is enough (DESIGN.md). */
export function verifySignatures(
  given: { hmacHeader?: string | null | undefined; rsaSignature?: string | null | undefined },
  fields: SignedFields,
  keys: SignatureKeys,
  opts: HmacOptions = {},
): SignatureVerdict {
  const s = signedString(fields);
  const hmac = verifyHmacHeader(given.hmacHeader, s, keys.signingKey, opts);
  const rsa = verifyRsaSignature(given.rsaSignature, s, keys.servicePublicKey);
  if (hmac.state === 'valid' || rsa.state === 'valid') return { state: 'verified', hmac, rsa };
  const reason = [hmac.reason, rsa.reason].filter(Boolean).join('; ');
  if (hmac.state === 'invalid' || rsa.state === 'invalid') return { state: 'invalid', hmac, rsa, reason };
  return { state: 'missing', hmac, rsa, reason };
}
