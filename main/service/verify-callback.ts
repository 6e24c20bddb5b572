// Signature checks for callbacks and redirects, in one place: the service signs
// event:merchant_reference:internal_reference:transaction_type:transaction_status with HMAC-SHA256
// (merchant signing key) and RSA-SHA512 (service key); either valid is enough (./signatures.ts).
// It lives with the service because both callbacks (ingest) and collections (charge) use it: neither
// capability imports the other.
import crypto from 'node:crypto';
import { verifySignatures, type HmacOptions, type SignatureKeys } from './signatures.js';
import type { SignedFields } from './types.js';

/** { signingKey (HMAC), servicePublicKey (RSA, PEM) }: either may be missing; one is enough. */
export type { SignatureKeys };

/** The event row's signature state (collections/model.ts SignatureState) short of 'not_applicable'. */
export interface SignatureCheck {
  state: 'verified' | 'invalid' | 'missing';
  reason?: string;
}

export function checkSignatures(
  fields: SignedFields,
  sig: { hmacHeader?: string | null | undefined; rsaSignature?: string | null | undefined },
  keys: SignatureKeys,
  opts: HmacOptions = {},
): SignatureCheck {
  const hmacHeader = sig.hmacHeader || undefined;
  const rsaSignature = sig.rsaSignature || undefined;
  if (!hmacHeader && !rsaSignature) return { state: 'missing', reason: 'no hmac-signature or rsa-signature' };
  const k = { signingKey: keys.signingKey ?? null, servicePublicKey: keyObject(keys.servicePublicKey) };
  // Either valid is enough: a valid HMAC (cheap) spares the RSA check; otherwise both are reported.
  if (hmacHeader && k.signingKey && verifySignatures({ hmacHeader }, fields, k, opts).state === 'verified')
    return { state: 'verified' };
  const r = verifySignatures({ hmacHeader, rsaSignature }, fields, k, opts);
  return r.reason ? { state: r.state, reason: r.reason } : { state: r.state };
}

// Parsing a 4096-bit PEM costs more than verifying with it: keep the parsed key for the PEM text in use.
let cachedPem: string | null = null;
let cachedKey: crypto.KeyObject | null = null;
function keyObject(k: SignatureKeys['servicePublicKey']): SignatureKeys['servicePublicKey'] {
  if (typeof k !== 'string') return k ?? null;
  if (k === cachedPem && cachedKey) return cachedKey;
  try {
    cachedKey = crypto.createPublicKey(k);
    cachedPem = k;
    return cachedKey;
  } catch {
    return k; // let the verifier report it as unreadable
  }
}
