import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCardCipher, cardDataProblems } from '../../main/service/card-cipher.js';
import { CardDataError } from '../../main/service/errors.js';
import { loadServicePublicKey } from '../../main/service/service-key.js';
import type { CardData } from '../../main/service/types.js';
import { opensslDecryptPkcs1, opensslRsaKey, type OpensslKey } from './openssl.js';

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
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-cipher-'));
  key = opensslRsaKey(dir, 4096);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

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
  it('makes ciphertext that openssl decrypts (RSA PKCS#1 v1.5) to the normalized card JSON', () => {
    const b64 = buildCardCipher(CARD, key.publicPem);
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
    expect(buildCardCipher(CARD, key.publicPem)).not.toBe(b64);
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
    const plain = decrypt(buildCardCipher(card, loadServicePublicKey(key.publicPem)));
    expect(plain).toMatchObject({ first_name: 'Zoë', card_no: '5555555555554444', billing_city: 'Montréal', billing_country: 'CA' });
    expect(plain).not.toHaveProperty('pin');
    expect(decrypt(buildCardCipher({ ...CARD, pin: '1234' }, key.publicPem)).pin).toBe('1234');
  });

  it('zeroes the plaintext buffer after encrypting', () => {
    const spy = vi.spyOn(crypto, 'publicEncrypt');
    try {
      buildCardCipher(CARD, key.publicPem);
      const plaintext = spy.mock.calls[0]![1] as Buffer;
      expect(plaintext.length).toBeGreaterThan(50);
      expect(plaintext.every((b) => b === 0)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it('names the field at fault and never shows its value', () => {
    const cases: [Partial<Record<keyof CardData | 'extra', unknown>>, string, RegExp][] = [
      [{ card_no: '4242 4242 42' }, 'card_no', /12 to 19 digits/],
      [{ card_no: '4242424242424241' }, 'card_no', /check digit/],
      [{ card_no: '4242abcd42424242' }, 'card_no', /digits/],
      [{ exp_month: '13' }, 'exp_month', /01 to 12/],
      [{ exp_month: '00' }, 'exp_month', /01 to 12/],
      [{ exp_year: '203' }, 'exp_year', /2 or 4 digits/],
      [{ cvv: '12' }, 'cvv', /3 or 4 digits/],
      [{ cvv: 123 }, 'cvv', /must be text/],
      [{ first_name: '  ' }, 'first_name', /required/],
      [{ last_name: undefined }, 'last_name', /required/],
      [{ billing_country: 'USA' }, 'billing_country', /2-letter/],
      [{ billing_city: 'Kampala\n' + 'x' }, 'billing_city', /control characters/],
      [{ pin: '12' }, 'pin', /4 to 12 digits/],
      [{ extra: '4242424242424242' }, 'extra', /not a card field/],
    ];
    for (const [patch, field, message] of cases) {
      const e = cardError(() => buildCardCipher({ ...CARD, ...patch } as CardData, key.publicPem));
      expect(e.field).toBe(field);
      expect(e.message).toMatch(message);
      for (const v of Object.values(patch)) if (typeof v === 'string' && v.trim().length > 2) expect(e.message).not.toContain(v.trim());
      expect(e.message).not.toContain('4242');
    }
    expect(cardError(() => buildCardCipher(null as unknown as CardData, key.publicPem)).field).toBe('card');
  });

  it('lists every problem for a form, and rejects an expired card only when given the time', () => {
    const problems = cardDataProblems({ ...CARD, card_no: '1', cvv: 'x', exp_year: '2020' });
    expect(problems.map((p) => p.field)).toEqual(['card_no', 'cvv']);
    const now = Date.UTC(2026, 10, 21);
    expect(cardDataProblems({ ...CARD, exp_month: '10', exp_year: '26' }, { now }).map((p) => p.field)).toEqual(['exp_year']);
    expect(cardDataProblems({ ...CARD, exp_month: '11', exp_year: '26' }, { now })).toEqual([]);
    expect(() => buildCardCipher({ ...CARD, exp_month: '01', exp_year: '2020' }, key.publicPem, { now })).toThrow(/expired/);
  });

  it('says which fields to shorten when the JSON does not fit the key (501 bytes for 4096 bits)', () => {
    const long: CardData = { ...CARD, billing_address: 'A'.repeat(300), billing_city: 'B'.repeat(120), billing_state: 'C'.repeat(40) };
    const e = cardError(() => buildCardCipher(long, key.publicPem));
    expect(e.field).toBe('billing_address');
    expect(e.message).toMatch(/takes at most 501/);
    expect(e.message).toMatch(/billing_address \(300 bytes\), billing_city \(120 bytes\), billing_state \(40 bytes\)/);
    expect(e.message).not.toMatch(/AAAA/);
    // Just fitting is fine: shrink the address until the JSON is exactly 501 bytes.
    const base = Buffer.byteLength(JSON.stringify({ ...CARD, card_no: '4242424242424242', exp_month: '07', billing_address: '' }));
    const fits = { ...CARD, billing_address: 'A'.repeat(501 - base) };
    expect(decrypt(buildCardCipher(fits, key.publicPem)).billing_address).toHaveLength(501 - base);
    expect(() => buildCardCipher({ ...fits, billing_address: fits.billing_address + 'A' }, key.publicPem)).toThrow(/shorten it by 1 byte;/);
  });

  it('refuses a private key in place of the service public key', () => {
    expect(() => buildCardCipher(CARD, fs.readFileSync(key.privatePath, 'utf8'))).toThrow(/private key/);
  });
});
