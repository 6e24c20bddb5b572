// Signatures over `event:merchant_reference:internal_reference:transaction_type:transaction_status`:
// HMAC-SHA256 (hex) with the merchant's signing key, sent as `t=<unix seconds>,s=<hex>`, and
// RSA-SHA512 PKCS#1 v1.5 (base64) with the sandbox's private key.
import crypto from 'node:crypto';

export interface SignedFields {
  event: string;
  merchant_reference: string;
  internal_reference: string;
  transaction_type: string;
  transaction_status: string;
}

export function signedString(f: SignedFields): string {
  return [f.event, f.merchant_reference, f.internal_reference, f.transaction_type, f.transaction_status].join(':');
}

export class Signer {
  constructor(
    private readonly signingKey: string,
    private readonly privateKey: crypto.KeyObject,
  ) {}

  /** `t` is wall-clock unix seconds (it is not part of the signed string). */
  sign(f: SignedFields, nowMs = Date.now()): { hmac: string; rsa: string } {
    const text = signedString(f);
    const s = crypto.createHmac('sha256', this.signingKey).update(text, 'utf8').digest('hex');
    const rsa = crypto.sign('sha512', Buffer.from(text, 'utf8'), {
      key: this.privateKey,
      padding: crypto.constants.RSA_PKCS1_PADDING,
    });
    return { hmac: `t=${Math.floor(nowMs / 1000)},s=${s}`, rsa: rsa.toString('base64') };
  }
}
