import { describe, expect, it } from 'vitest';
import { signedString, verifyHmacHeader, verifyRsaSignature, verifySignatures } from '../../main/service/signatures.js';
import type { SignedFields } from '../../main/service/types.js';
import { tempDir } from '../support/tmp.js';
import { opensslRsaKey, opensslSignSha512 } from './openssl.js';

const FIELDS: SignedFields = {
  event: 'transaction.completed',
  merchant_reference: 'MD-20261121-0001',
  internal_reference: 'INT-7f3a9c',
  transaction_type: 'Collection',
  transaction_status: 'COMPLETED',
};
const SIGNED = 'transaction.completed:MD-20261121-0001:INT-7f3a9c:Collection:COMPLETED';
const SIGNING_KEY = 'sk_sign_5f2b8e1c9d';

// Vectors made with: printf '%s' "<signed>" | openssl dgst -sha256 -hmac '<key>'
const HMAC_VECTORS = [
  { signed: SIGNED, key: SIGNING_KEY, hex: 'bb7ef48f85469d319f12c06e0b9a442723605fadedfa92dda0a2233548a5d11d' },
  {
    signed: 'transaction.failed:ref-ünïcode-9:INT-1:Collection:FAILED',
    key: SIGNING_KEY,
    hex: '988f01193af48b9edce134c27abd0a29562b4473762f93ae957dbf79e6a77762',
  },
  { signed: SIGNED, key: 'other-key', hex: 'cf8ec80f0ffef43c58ee9c3d4457382e4e9e15331723d303438967368b054223' },
];

// Made with: openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048; openssl pkey -pubout;
// printf '%s' "$SIGNED" | openssl dgst -sha512 -sign k.pem | base64 -w0  (the private key was discarded).
const FIXED_PUB = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAi+6YX8wPiIoS0cTAaUEo
KiILFjH+vx0w9W5s2D0ePaQW4K3foO/qZ48fm4pWaWBJ8J26JTV0rjOvDactnGM3
1nIP/gLTAuCxnOrG1Mq89e5cusn/y3tWLL26oqFhv7twnUMVnPAEZ7XpMVBLxU+q
crFldyakTZydp2H9T8CM84ugmYQj5E1QhuJGg5ZdwE7Iv8qkTpM03Rg3+EatDWyH
LDCH1g/n8ed5WFCAPqbrZmAerYtO4Bi4KsmKQ1tzz/k8D12OpcY1KM37sKuwpORz
FKqDllGBMRb966vs2CSprLJeLV/F8vOT1Oso7qPwpkrCCIlpmUQzA6h8HkORQq8s
HQIDAQAB
-----END PUBLIC KEY-----
`;
const FIXED_RSA_SIG =
  'WlI6OPcPckfwEN4k7zXCAZztX4IBUa681jaHS7l8tCK4hTFl6GJp7/OhHKDLCxaolcSIK80teO4Tvcki2/cl8dg3B1Q/7NNoTZPtIZK3xc3nQFNrhNO+agtLL9EVeOlAXADJmE2JdkKs8O4lJaEw2Nl7PMw/M1ENiBdGqDzLL5j/YWqht9m/At3PYg1w44XcI4D2kuGyTqOT3giuzkitpEa2iBlaKMAfRNsKaveEODWnoq+2dp5alxmnH1aVNhfPEAlDJcEB7BlZE1SJsWk3ZnfTM1bbULKzyJkv76mG7+iwNsUKYrYUvdbNT246TW7qxbigQ4eM/E8HZ3Z5Lk+tGQ==';

describe('signedString', () => {
  it('joins the five fields with colons in signing order', () => {
    expect(signedString(FIELDS)).toBe(SIGNED);
  });
});

describe('verifyHmacHeader', () => {
  it('accepts the openssl vectors (t= and s= in either order, hex in any case)', () => {
    for (const v of HMAC_VECTORS) {
      expect(verifyHmacHeader(`t=1763700000,s=${v.hex}`, v.signed, v.key)).toEqual({
        state: 'valid',
        timestamp: 1763700000,
      });
      expect(verifyHmacHeader(`s=${v.hex.toUpperCase()}, t=1763700000`, v.signed, v.key).state).toBe('valid');
    }
  });
  it('rejects a signature made with another key, or over a changed field, and says so', () => {
    const other = HMAC_VECTORS[2]!.hex;
    const r = verifyHmacHeader(`t=1,s=${other}`, SIGNED, SIGNING_KEY);
    expect(r.state).toBe('invalid');
    expect(r.reason).toMatch(/does not match/);
    const changed = SIGNED.replace('COMPLETED', 'FAILED');
    expect(verifyHmacHeader(`t=1,s=${HMAC_VECTORS[0]!.hex}`, changed, SIGNING_KEY).state).toBe('invalid');
  });
  it('explains malformed headers', () => {
    const hex = HMAC_VECTORS[0]!.hex;
    expect(verifyHmacHeader(hex, SIGNED, SIGNING_KEY).reason).toMatch(/malformed/);
    expect(verifyHmacHeader(`t=1`, SIGNED, SIGNING_KEY).reason).toMatch(/malformed/);
    expect(verifyHmacHeader(`t=abc,s=${hex}`, SIGNED, SIGNING_KEY).reason).toMatch(/unix time/);
    expect(verifyHmacHeader(`t=1,s=${hex.slice(2)}`, SIGNED, SIGNING_KEY).reason).toMatch(/64 hex/);
    expect(verifyHmacHeader(`t=1,s=${hex},s=${hex}`, SIGNED, SIGNING_KEY).reason).toMatch(/twice/);
    expect(verifyHmacHeader(undefined, SIGNED, SIGNING_KEY).state).toBe('missing');
    expect(verifyHmacHeader(` `, SIGNED, SIGNING_KEY).state).toBe('missing');
    expect(verifyHmacHeader(`t=1,s=${hex}`, SIGNED, '').state).toBe('unverifiable');
  });
  it('applies a time tolerance only when asked', () => {
    const h = `t=1763700000,s=${HMAC_VECTORS[0]!.hex}`;
    expect(verifyHmacHeader(h, SIGNED, SIGNING_KEY, { now: 1763700000_000 + 299_000, toleranceS: 300 }).state).toBe(
      'valid',
    );
    const late = verifyHmacHeader(h, SIGNED, SIGNING_KEY, { now: 1763700000_000 + 301_000, toleranceS: 300 });
    expect(late.state).toBe('invalid');
    expect(late.reason).toMatch(/301 s from now/);
    expect(verifyHmacHeader(h, SIGNED, SIGNING_KEY, { now: 0 }).state).toBe('valid');
  });
});

describe('verifyRsaSignature', () => {
  it('accepts the committed openssl vector', () => {
    expect(verifyRsaSignature(FIXED_RSA_SIG, SIGNED, FIXED_PUB)).toEqual({ state: 'valid' });
  });
  it('accepts what openssl signs with a key it made now, including after query-string damage', () => {
    const key = opensslRsaKey(tempDir(), 4096);
    for (const s of [SIGNED, 'transaction.failed:ref-ünïcode-9:INT-1:Collection:FAILED']) {
      const sig = opensslSignSha512(key.privatePath, s);
      expect(verifyRsaSignature(sig, s, key.publicPem).state).toBe('valid');
      // '+' read as ' ' from an unencoded query string, and base64url.
      expect(verifyRsaSignature(sig.replace(/\+/g, ' '), s, key.publicPem).state).toBe('valid');
      expect(
        verifyRsaSignature(sig.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), s, key.publicPem).state,
      ).toBe('valid');
    }
  });
  it('rejects another key, a changed field, a truncated or non-base64 signature', () => {
    const key = opensslRsaKey(tempDir(), 2048);
    expect(verifyRsaSignature(FIXED_RSA_SIG, SIGNED, key.publicPem).reason).toMatch(/does not match/);
    expect(verifyRsaSignature(FIXED_RSA_SIG, SIGNED.replace('COMPLETED', 'FAILED'), FIXED_PUB).state).toBe('invalid');
    expect(verifyRsaSignature(FIXED_RSA_SIG.slice(8), SIGNED, FIXED_PUB).reason).toMatch(/bytes/);
    expect(verifyRsaSignature('not*base64!', SIGNED, FIXED_PUB).reason).toMatch(/not base64/);
    expect(verifyRsaSignature(FIXED_RSA_SIG, SIGNED, null).state).toBe('unverifiable');
    expect(verifyRsaSignature('', SIGNED, FIXED_PUB).state).toBe('missing');
  });
});

describe('verifySignatures', () => {
  const hmacOk = `t=1763700000,s=${HMAC_VECTORS[0]!.hex}`;
  const hmacBad = `t=1763700000,s=${HMAC_VECTORS[2]!.hex}`;
  const keys = { signingKey: SIGNING_KEY, servicePublicKey: FIXED_PUB };
  it('is verified when either signature is valid', () => {
    expect(verifySignatures({ hmacHeader: hmacOk, rsaSignature: FIXED_RSA_SIG }, FIELDS, keys).state).toBe('verified');
    expect(verifySignatures({ hmacHeader: hmacBad, rsaSignature: FIXED_RSA_SIG }, FIELDS, keys).state).toBe('verified');
    expect(verifySignatures({ hmacHeader: hmacOk, rsaSignature: 'AAAA' }, FIELDS, keys).state).toBe('verified');
    expect(verifySignatures({ hmacHeader: hmacOk }, FIELDS, { signingKey: SIGNING_KEY }).state).toBe('verified');
  });
  it('is invalid when a present signature fails and none is valid, with both reasons', () => {
    const v = verifySignatures({ hmacHeader: hmacBad, rsaSignature: 'AAAA' }, FIELDS, keys);
    expect(v.state).toBe('invalid');
    expect(v.hmac.state).toBe('invalid');
    expect(v.rsa.state).toBe('invalid');
    expect(v.reason).toMatch(/hmac-signature does not match.*rsa-signature/);
    const tampered = { ...FIELDS, transaction_status: 'FAILED' };
    expect(verifySignatures({ hmacHeader: hmacOk, rsaSignature: FIXED_RSA_SIG }, tampered, keys).state).toBe('invalid');
  });
  it('is missing when nothing could be checked', () => {
    expect(verifySignatures({}, FIELDS, keys).state).toBe('missing');
    const v = verifySignatures({ hmacHeader: hmacOk }, FIELDS, {});
    expect(v.state).toBe('missing');
    expect(v.reason).toMatch(/no signing key/);
  });
});
