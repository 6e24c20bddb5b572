// How the repeat-charge guard knows a card without keeping it: an HMAC-SHA256 of the card number, the
// amount and the currency under a key. Never a plain hash: card numbers are few enough (a known BIN,
// the Luhn digit) that anyone holding an unkeyed hash finds the number by trying them all.
//
// A solo desk keys it with random bytes held in memory for this run (repeat-guard.ts). A team desk must
// recognise a card another desk charged, so every desk of the team needs the same key, and the team
// database must not hold it (else the fingerprints it keeps could be tried against card numbers there).
// The key is derived (HKDF-SHA256) from the merchant's secret key: every team desk holds it in its
// keychain to charge at all (initialize sends it), the team database never sees it, and finance or back
// office logins read the team record without it. docs/team.md ("Team-wide charge guards") says why not
// the signing key, and what a key rotation does.
import crypto from 'node:crypto';
import { digitsOnly } from '../card-number.shared.js';

/** What the derivation is for; a new version of the fingerprint gets a new info string (and key). */
const HKDF_INFO = 'merchant-desk team repeat-charge card fingerprint v1';
const HKDF_SALT = 'merchant-desk';

/** The team's fingerprint key, the same on every desk holding the merchant's secret key. */
export function teamFingerprintKey(merchantSecretKey: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', merchantSecretKey, HKDF_SALT, HKDF_INFO, 32));
}

/** The card, amount and currency under `key`: 32 bytes. */
export function cardFingerprint(key: Buffer, cardNumber: string, amountMinor: number, currency: string): Buffer {
  return crypto.createHmac('sha256', key).update(digitsOnly(cardNumber)).update(`|${amountMinor}|${currency}`).digest();
}
