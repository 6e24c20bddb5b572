// card_cipher: the card object as JSON, encrypted with RSA PKCS#1 v1.5 under the service public key,
// base64 (DESIGN.md "card_cipher"). The card data is validated first; every error names the field and
// never contains a value. The plaintext exists only in a Buffer that is zeroed before returning.
//
// Node 20 note: publicEncrypt with RSA_PKCS1_PADDING works. It is privateDecrypt with that padding
// that Node refuses since CVE-2023-46809 (OpenSSL < 3.2); the service (and the sandbox) decrypts.
import crypto from 'node:crypto';
import { CardDataError } from './errors.js';
import { loadServicePublicKey, type ServicePublicKey } from './service-key.js';
import type { CardData } from './types.js';

/** The fields of the card object, in the order they are written to the JSON. */
export const CARD_FIELDS = [
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
const REQUIRED: readonly CardField[] = ['first_name', 'last_name', 'card_no', 'exp_month', 'exp_year', 'cvv'];
/** Free-text fields a person can shorten when the JSON does not fit the key. */
const SHORTENABLE: readonly CardField[] = ['first_name', 'last_name', 'billing_address', 'billing_city', 'billing_state', 'billing_zip'];

export interface CardProblem {
  field: string;
  message: string;
}

export interface CardCheckOptions {
  /** When given (ms since epoch), an expiry month before this one's month (UTC) is an error. */
  now?: number;
}

/**
 * Every problem with a card object, for a form (empty when it is acceptable). Messages name the
 * field and never contain its value.
 */
export function cardDataProblems(card: unknown, opts: CardCheckOptions = {}): CardProblem[] {
  return normalize(card, opts).problems;
}

/**
 * Validates the card, builds its JSON in a Buffer, checks it fits one RSA block of the key, encrypts
 * it (RSA PKCS#1 v1.5), zeroes the Buffer and returns the base64 ciphertext.
 * Throws CardDataError (field + message, no values) or ServiceKeyError (bad key).
 */
export function buildCardCipher(card: CardData, servicePublicKey: string | ServicePublicKey, opts: CardCheckOptions = {}): string {
  const key = typeof servicePublicKey === 'string' ? loadServicePublicKey(servicePublicKey) : servicePublicKey;
  const { values, problems } = normalize(card, opts);
  if (problems.length > 0) {
    const p = problems[0]!;
    throw new CardDataError(p.field, problems.length > 1 ? `${p.message} (and ${problems.length - 1} more)` : p.message);
  }
  // The JSON, written piece by piece into one Buffer (no whole-JSON string is made).
  const entries = CARD_FIELDS.filter((f) => values[f] !== undefined).map((f) => ({
    field: f,
    key: JSON.stringify(f),
    value: JSON.stringify(values[f]),
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

// --- validation ---

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function normalize(card: unknown, opts: CardCheckOptions): { values: Partial<Record<CardField, string>>; problems: CardProblem[] } {
  const problems: CardProblem[] = [];
  const values: Partial<Record<CardField, string>> = {};
  if (card === null || typeof card !== 'object' || Array.isArray(card)) {
    return { values, problems: [{ field: 'card', message: 'The card data must be an object with the card fields.' }] };
  }
  const obj = card as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (!(CARD_FIELDS as readonly string[]).includes(k)) problems.push({ field: k, message: `${k} is not a card field.` });
  }
  const text = (f: CardField): string | undefined => {
    const v = obj[f];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      problems.push({ field: f, message: `${f} must be text.` });
      return undefined;
    }
    const t = v.trim();
    if (CONTROL.test(t)) {
      problems.push({ field: f, message: `${f} contains control characters.` });
      return undefined;
    }
    return t === '' ? undefined : t;
  };
  const bad = (f: CardField, message: string) => problems.push({ field: f, message });

  for (const f of CARD_FIELDS) {
    const hadProblem = problems.length;
    let v = text(f);
    if (problems.length > hadProblem) continue;
    if (v === undefined) {
      if (REQUIRED.includes(f)) bad(f, `${f} is required.`);
      continue;
    }
    switch (f) {
      case 'card_no':
        v = v.replace(/[\s-]/g, '');
        if (!/^\d{12,19}$/.test(v)) bad(f, 'card_no must be 12 to 19 digits.');
        else if (!luhnValid(v)) bad(f, 'card_no is not a valid card number (its check digit is wrong); check for a typing mistake.');
        break;
      case 'exp_month':
        if (!/^\d{1,2}$/.test(v) || Number(v) < 1 || Number(v) > 12) bad(f, 'exp_month must be a month from 01 to 12.');
        else v = v.padStart(2, '0');
        break;
      case 'exp_year':
        if (!/^(\d{2}|\d{4})$/.test(v)) bad(f, 'exp_year must be 2 or 4 digits.');
        break;
      case 'cvv':
        if (!/^\d{3,4}$/.test(v)) bad(f, 'cvv must be 3 or 4 digits.');
        break;
      case 'pin':
        if (!/^\d{4,12}$/.test(v)) bad(f, 'pin must be 4 to 12 digits.');
        break;
      case 'billing_country':
        if (!/^[A-Za-z]{2}$/.test(v)) bad(f, 'billing_country must be a 2-letter ISO country code (e.g. US, GB, UG).');
        else v = v.toUpperCase();
        break;
      default:
        break;
    }
    values[f] = v;
  }
  if (opts.now !== undefined && /^\d{2}$/.test(values.exp_month ?? '') && /^(\d{2}|\d{4})$/.test(values.exp_year ?? '')) {
    const y = values.exp_year!.length === 2 ? 2000 + Number(values.exp_year) : Number(values.exp_year);
    const m = Number(values.exp_month);
    const d = new Date(opts.now);
    const nowIndex = d.getUTCFullYear() * 12 + d.getUTCMonth();
    if (y * 12 + (m - 1) < nowIndex) bad('exp_year', 'The card has expired: check exp_month and exp_year.');
  }
  return { values, problems };
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
