import fs from 'node:fs';
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCardCipher } from '../../main/service/card-cipher.js';
import { CardDataError } from '../../main/service/errors.js';
import { loadServicePublicKey } from '../../main/service/service-key.js';
import type { CardData } from '../../main/service/types.js';
import { parseCard } from '../../main/collections/card-input.shared.js';
import { validCardData } from '../support/card.js';
import { opensslDecryptPkcs1, opensslRsaKey, type OpensslKey } from './openssl.js';
import { fileTempDir } from '../support/tmp.js';

const CARD: CardData = {
  first_name: 'Amina',
  last_name: 'Nakato',
  card_no: '4242 4242 4242 4242',
  exp_month: '7',
  exp_year: '2031',
  cvv: '123',
};

let dir: string;
let key: OpensslKey;
beforeAll(() => {
  dir = fileTempDir('md-cipher-');
  key = opensslRsaKey(dir, 4096);
});

function decrypt(b64: string): Record<string, string> {
  return JSON.parse(opensslDecryptPkcs1(key.privatePath, b64).toString('utf8')) as Record<string, string>;
}

function cardError(fn: () => unknown): CardDataError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CardDataError);
    return e as CardDataError;
  }
  throw new Error('expected a CardDataError');
}

describe('buildCardCipher', () => {
  it('takes only a validated card: a number failing Luhn never becomes one, and a plain card object does not type-check', () => {
    const typo = {
      number: '4242 4242 4242 4241',
      expMonth: '12',
      expYear: '2031',
      cvv: '123',
      firstName: 'Amina',
      lastName: 'Nakato',
    };
    expect(parseCard(typo, Date.now())).toEqual({
      ok: false,
      errors: { 'card.number': { id: 'payment.err.numberLuhn' } },
    });
    expect(() => validCardData({ ...CARD, card_no: '4242424242424241' })).toThrow(/check digit/);
    const plain: CardData = { ...CARD, card_no: '4242424242424241' };
    // @ts-expect-error a plain card object is not a ValidCardData: only the form rules (parseCard) make one
    const neverRun = () => buildCardCipher(plain, key.publicPem);
    expect(neverRun).toBeTypeOf('function');
  });

  it('makes ciphertext that openssl decrypts (RSA PKCS#1 v1.5) to the normalized card JSON', () => {
    const b64 = buildCardCipher(validCardData(CARD), key.publicPem);
    expect(Buffer.from(b64, 'base64')).toHaveLength(512);
    expect(decrypt(b64)).toEqual({
      first_name: 'Amina',
      last_name: 'Nakato',
      card_no: '4242424242424242',
      exp_month: '07',
      exp_year: '2031',
      cvv: '123',
    });
    // Random padding: the same card never gives the same ciphertext twice.
    expect(buildCardCipher(validCardData(CARD), key.publicPem)).not.toBe(b64);
  });

  it('carries billing fields, unicode names and the optional PIN; drops empty optional fields', () => {
    const card: CardData = {
      ...CARD,
      first_name: 'Zoë',
      card_no: '5555-5555-5555-4444',
      billing_address: '12 Rue de l’Église',
      billing_city: 'Montréal',
      billing_zip: 'H2X 1Y4',
      billing_state: 'QC',
      billing_country: 'ca',
      pin: '',
    };
    const plain = decrypt(buildCardCipher(validCardData(card), loadServicePublicKey(key.publicPem)));
    expect(plain).toMatchObject({
      first_name: 'Zoë',
      card_no: '5555555555554444',
      billing_city: 'Montréal',
      billing_country: 'CA',
    });
    expect(plain).not.toHaveProperty('pin');
    expect(decrypt(buildCardCipher(validCardData({ ...CARD, pin: '1234' }), key.publicPem)).pin).toBe('1234');
  });

  it('zeroes the plaintext buffer after encrypting', () => {
    const spy = vi.spyOn(crypto, 'publicEncrypt');
    try {
      buildCardCipher(validCardData(CARD), key.publicPem);
      const plaintext = spy.mock.calls[0]![1] as Buffer;
      expect(plaintext.length).toBeGreaterThan(50);
      expect(plaintext.every((b) => b === 0)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it('says which fields to shorten when the JSON does not fit the key (501 bytes for 4096 bits)', () => {
    // Each field within the form's limits, together too long for one RSA block.
    const more = { billing_city: 'B'.repeat(95), billing_zip: 'D'.repeat(85), billing_state: 'C'.repeat(90) };
    const e = cardError(() =>
      buildCardCipher(validCardData({ ...CARD, ...more, billing_address: 'A'.repeat(100) }), key.publicPem),
    );
    expect(e.field).toBe('billing_address');
    expect(e.message).toMatch(/takes at most 501/);
    expect(e.message).toMatch(/billing_address \(100 bytes\), billing_city \(95 bytes\), billing_state \(90 bytes\)/);
    expect(e.message).not.toMatch(/AAAA/);
    // Just fitting is fine: shrink the address until the JSON is exactly 501 bytes.
    const base = Buffer.byteLength(
      JSON.stringify({ ...CARD, card_no: '4242424242424242', exp_month: '07', ...more, billing_address: '' }),
    );
    const fits = { ...CARD, ...more, billing_address: 'A'.repeat(501 - base) };
    expect(decrypt(buildCardCipher(validCardData(fits), key.publicPem)).billing_address).toHaveLength(501 - base);
    expect(() =>
      buildCardCipher(validCardData({ ...fits, billing_address: fits.billing_address + 'A' }), key.publicPem),
    ).toThrow(/shorten it by 1 byte;/);
  });

  it('refuses a private key in place of the service public key', () => {
    expect(() => buildCardCipher(validCardData(CARD), fs.readFileSync(key.privatePath, 'utf8'))).toThrow(/private key/);
  });
});
