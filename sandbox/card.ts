// card_cipher: base64 of RSA PKCS#1 v1.5 over the card JSON. The sandbox decrypts it, checks the
// card, decides the test scenario, and keeps only brand, last four and the scenario. The plaintext
// buffer is zeroed; nothing of the card reaches a log, the state, or an error message.
import crypto from 'node:crypto';
import { badField } from './envelope.js';

export type Scenario = 'approve' | 'decline' | 'insufficient_funds' | 'challenge' | 'flip';

export interface CardSummary {
  brand: string;
  last4: string;
  scenario: Scenario;
}

const SCENARIOS: Record<string, Scenario> = {
  '4242424242424242': 'approve',
  '5555555555554444': 'approve',
  '4000002500000003': 'approve',
  '4000000000000002': 'decline',
  '4000000000009995': 'insufficient_funds',
  '4000000000003220': 'challenge',
  '4000000000000259': 'flip',
};

const REQUIRED = ['first_name', 'last_name', 'card_no', 'exp_month', 'exp_year', 'cvv'] as const;
const BILLING = ['billing_address', 'billing_city', 'billing_zip', 'billing_state', 'billing_country'] as const;

/** Cards the sandbox treats as issued in the USA, Canada or Europe: billing fields required. */
export function needsBilling(cardNo: string): boolean {
  return cardNo.startsWith('40000025') || cardNo === '5555555555554444';
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function brandOf(cardNo: string): string {
  if (cardNo.startsWith('4')) return 'VISA';
  if (/^5[1-5]/.test(cardNo) || /^2[2-7]/.test(cardNo)) return 'MASTERCARD';
  if (/^3[47]/.test(cardNo)) return 'AMEX';
  return 'CARD';
}

/**
 * RSA PKCS#1 v1.5 decryption. Node 20 refuses RSA_PKCS1_PADDING for private decryption (Marvin,
 * CVE-2023-46809), so decrypt raw and remove the type-2 padding here.
 */
function decryptPkcs1(privateKey: crypto.KeyObject, cipher: Buffer): Buffer | undefined {
  const size = (privateKey.asymmetricKeyDetails?.modulusLength ?? 4096) / 8;
  if (cipher.length !== size) return undefined;
  let em: Buffer;
  try {
    em = crypto.privateDecrypt({ key: privateKey, padding: crypto.constants.RSA_NO_PADDING }, cipher);
  } catch {
    return undefined;
  }
  try {
    if (em[0] !== 0x00 || em[1] !== 0x02) return undefined;
    const sep = em.indexOf(0x00, 2);
    if (sep < 10) return undefined; // at least 8 bytes of non-zero padding
    return Buffer.from(em.subarray(sep + 1));
  } finally {
    em.fill(0);
  }
}

/** Decrypts and checks card_cipher against the card rules; returns what may be kept. */
export function readCardCipher(privateKey: crypto.KeyObject, cipherText: unknown, today: Date): CardSummary {
  if (cipherText === undefined || cipherText === null || cipherText === '') {
    throw badField('card_cipher', 'card_cipher is required', 400);
  }
  if (typeof cipherText !== 'string') throw badField('card_cipher', 'card_cipher must be a base64 string');
  const compact = cipherText.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    throw badField('card_cipher', 'card_cipher must be base64 text');
  }
  const plain = decryptPkcs1(privateKey, Buffer.from(compact, 'base64'));
  if (!plain) {
    throw badField(
      'card_cipher',
      'card_cipher could not be decrypted: encrypt the card JSON with RSA PKCS#1 v1.5 using the service public key, then base64',
    );
  }
  let card: unknown;
  try {
    card = JSON.parse(plain.toString('utf8'));
  } catch {
    card = undefined;
  } finally {
    plain.fill(0);
  }
  if (typeof card !== 'object' || card === null || Array.isArray(card)) {
    throw badField('card_cipher', 'card_cipher must decrypt to a JSON object with the card fields');
  }
  return checkCard(card as Record<string, unknown>, today);
}

function checkCard(card: Record<string, unknown>, today: Date): CardSummary {
  const str = (name: string): string | undefined => {
    const v = card[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw badField(`card_cipher.${name}`, `card_cipher.${name} must be a string`);
    const t = v.trim();
    return t === '' ? undefined : t;
  };
  for (const f of REQUIRED) {
    if (str(f) === undefined) throw badField(`card_cipher.${f}`, `card_cipher.${f} is required`);
  }
  const cardNo = str('card_no')!.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(cardNo)) {
    throw badField('card_cipher.card_no', 'card_cipher.card_no must be 12 to 19 digits');
  }
  if (!luhnValid(cardNo)) {
    throw badField('card_cipher.card_no', 'card_cipher.card_no is not a valid card number (check digit)');
  }
  const month = str('exp_month')!;
  if (!/^(0[1-9]|1[0-2])$/.test(month)) {
    throw badField('card_cipher.exp_month', 'card_cipher.exp_month must be two digits, 01 to 12');
  }
  const yearText = str('exp_year')!;
  if (!/^(\d{2}|\d{4})$/.test(yearText)) {
    throw badField('card_cipher.exp_year', 'card_cipher.exp_year must be 2 or 4 digits');
  }
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  const nowYear = today.getUTCFullYear();
  const nowMonth = today.getUTCMonth() + 1;
  if (year < nowYear || (year === nowYear && Number(month) < nowMonth)) {
    throw badField('card_cipher.exp_year', 'card_cipher.exp_year/exp_month: the card has expired');
  }
  const cvv = str('cvv')!;
  if (!/^\d{3,4}$/.test(cvv)) throw badField('card_cipher.cvv', 'card_cipher.cvv must be 3 or 4 digits');
  const pin = str('pin');
  if (pin !== undefined && !/^\d{4,6}$/.test(pin)) {
    throw badField('card_cipher.pin', 'card_cipher.pin must be 4 to 6 digits');
  }
  if (needsBilling(cardNo)) {
    for (const f of BILLING) {
      if (str(f) === undefined) {
        throw badField(
          `card_cipher.${f}`,
          `card_cipher.${f} is required for cards issued in the USA, Canada or Europe`,
        );
      }
    }
  }
  const country = str('billing_country');
  if (country !== undefined && !/^[A-Za-z]{2}$/.test(country)) {
    throw badField('card_cipher.billing_country', 'card_cipher.billing_country must be a 2-letter ISO country code');
  }
  return { brand: brandOf(cardNo), last4: cardNo.slice(-4), scenario: SCENARIOS[cardNo] ?? 'approve' };
}
