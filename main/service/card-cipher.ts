// card_cipher: the card object as JSON, encrypted with RSA PKCS#1 v1.5 under the service public key,
// base64 (DESIGN.md "card_cipher"). It takes only a ValidCardData: a card object made from a card that
// passed the form rules (collections/card-input.shared.ts, the one place a card is checked, Luhn included), so
// it does not check the card again. What only the key can tell (does the JSON fit one RSA block) is
// checked here; its error names the field and never contains a value. The plaintext exists only in a
// Buffer that is zeroed before returning.
//
// Node 20 note: publicEncrypt with RSA_PKCS1_PADDING works. It is privateDecrypt with that padding
// that Node refuses since CVE-2023-46809 (OpenSSL < 3.2); the service (and the sandbox) decrypts.
import crypto from 'node:crypto';
import { CardDataError } from './errors.js';
import { loadServicePublicKey, type ServicePublicKey } from './service-key.js';
import type { CardData } from './types.js';

declare const validCardData: unique symbol;
/**
 * A card object built from a validated card (collections/charge/card-data.ts toCardData, from a ValidCard):
 * trimmed, card_no digits only, exp_month two digits, billing_country upper case, empty optional fields left out.
 */
export type ValidCardData = CardData & { readonly [validCardData]: true };

/** The fields of the card object, in the order they are written to the JSON. */
const CARD_FIELDS = [
  'first_name',
  'last_name',
  'card_no',
  'exp_month',
  'exp_year',
  'cvv',
  'billing_address',
  'billing_city',
  'billing_zip',
  'billing_state',
  'billing_country',
  'pin',
] as const satisfies readonly (keyof CardData)[];

type CardField = (typeof CARD_FIELDS)[number];
/** Free-text fields a person can shorten when the JSON does not fit the key. */
const SHORTENABLE: readonly CardField[] = [
  'first_name',
  'last_name',
  'billing_address',
  'billing_city',
  'billing_state',
  'billing_zip',
];

/**
 * Builds the card's JSON in a Buffer, checks it fits one RSA block of the key, encrypts it (RSA PKCS#1
 * v1.5), zeroes the Buffer and returns the base64 ciphertext. Only the card object's fields are written.
 * Throws CardDataError (too long for the key: field + message, no values) or ServiceKeyError (bad key).
 */
export function buildCardCipher(card: ValidCardData, servicePublicKey: string | ServicePublicKey): string {
  const key = typeof servicePublicKey === 'string' ? loadServicePublicKey(servicePublicKey) : servicePublicKey;
  // The JSON, written piece by piece into one Buffer (no whole-JSON string is made).
  const entries = CARD_FIELDS.filter((f) => card[f]).map((f) => ({
    field: f,
    key: JSON.stringify(f),
    value: JSON.stringify(card[f]),
  }));
  const bytesOf = (e: (typeof entries)[number]) => Buffer.byteLength(e.key) + 1 + Buffer.byteLength(e.value);
  const total = 2 + entries.reduce((n, e) => n + bytesOf(e), 0) + Math.max(0, entries.length - 1);
  if (total > key.maxPlaintextBytes) {
    const longest = entries
      .filter((e) => SHORTENABLE.includes(e.field))
      .map((e) => ({ field: e.field, bytes: Buffer.byteLength(e.value) - 2 }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 3);
    const over = total - key.maxPlaintextBytes;
    throw new CardDataError(
      longest[0]?.field ?? 'card',
      `The card data is ${total} bytes but the service key (${key.bits} bits) takes at most ${key.maxPlaintextBytes}: ` +
        `shorten it by ${over} byte${over === 1 ? '' : 's'}; the longest fields are ` +
        longest.map((l) => `${l.field} (${l.bytes} bytes)`).join(', ') +
        '.',
    );
  }
  const plain = Buffer.alloc(total);
  try {
    let at = plain.write('{', 0);
    entries.forEach((e, i) => {
      if (i > 0) at += plain.write(',', at);
      at += plain.write(e.key, at);
      at += plain.write(':', at);
      at += plain.write(e.value, at);
    });
    plain.write('}', at);
    const cipher = crypto.publicEncrypt({ key: key.key, padding: crypto.constants.RSA_PKCS1_PADDING }, plain);
    return cipher.toString('base64');
  } finally {
    plain.fill(0);
  }
}
