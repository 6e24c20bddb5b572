// Signature checks for callbacks and redirects, in one place: the service signs
// event:merchant_reference:internal_reference:transaction_type:transaction_status with HMAC-SHA256
// (merchant signing key) and RSA-SHA512 (service key); either valid is enough (main/service/signatures.ts).
import { verifySignatures, type HmacOptions, type SignatureKeys } from '../service/signatures.js';
import type { SignedFields } from '../service/types.js';
import type { SignatureState } from '../collections/model.js';

/** { signingKey (HMAC), servicePublicKey (RSA, PEM) }: either may be missing; one is enough. */
export type { SignatureKeys };

export interface SignatureCheck {
  state: Exclude<SignatureState, 'not_applicable'>;
  reason?: string;
}

export function checkSignatures(
  fields: SignedFields,
  sig: { hmacHeader?: string | null; rsaSignature?: string | null },
  keys: SignatureKeys,
  opts: HmacOptions = {},
): SignatureCheck {
  const hmacHeader = sig.hmacHeader || undefined;
  const rsaSignature = sig.rsaSignature || undefined;
  if (!hmacHeader && !rsaSignature) return { state: 'missing', reason: 'no hmac-signature or rsa-signature' };
  const r = verifySignatures(
    { hmacHeader, rsaSignature },
    fields,
    keys,
    opts,
  );
  return r.reason ? { state: r.state, reason: r.reason } : { state: r.state };
}
