import { describe, expect, it } from 'vitest';
import { cvvLength, detectBrand, groupCardNumber, luhnValid } from '../../main/collections/card-number.shared.js';
import {
  billingRequired,
  expiryProblem,
  parseAmount,
  parseCard,
  parseCharge,
  validateCardForm,
  type AmountLimits,
  type CardFields,
  type CardForm,
} from '../../main/collections/card-input.shared.js';
import { toCardData } from '../../main/collections/charge/card-data.js';
import { english, type Words } from '../../main/words/words.shared.js';

/** The form's problems as main says them in English (the window says the same words in the person's language). */
const said = (errors: Record<string, Words>): Record<string, string> =>
  Object.fromEntries(Object.entries(errors).map(([k, w]) => [k, english(w)]));
const check = (f: CardForm, o: { now: number; limits: AmountLimits | null }) => said(validateCardForm(f, o));
const expiry = (m: string, y: string, now: number) => {
  const p = expiryProblem(m, y, now);
  return p && english(p.words);
};

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0); // 21 Nov 2026
const limits: AmountLimits = {
  minMinor: 1000,
  maxMinor: 5_000_000,
  maxDailyMinor: 10_000_000,
  collectedTodayMinor: 0,
  exponent: 0,
};

function form(over: Partial<CardForm> = {}, card: Partial<CardForm['card']> = {}): CardForm {
  return {
    amount: '15000',
    currency: 'UGX',
    description: 'Phone order 1234',
    customerName: 'Amina N',
    customerEmail: 'amina@example.com',
    chargeCustomer: false,
    allowFinalStatusChange: true,
    ...over,
    card: {
      number: '4242 4242 4242 4242',
      expMonth: '12',
      expYear: '2030',
      cvv: '123',
      firstName: 'Amina',
      lastName: 'N',
      ...card,
    },
  };
}

describe('card input rules', () => {
  it('checks Luhn on the test cards and catches a one-digit typo', () => {
    for (const n of [
      '4242424242424242',
      '5555555555554444',
      '4000002500000003',
      '4000000000000002',
      '4000000000009995',
      '4000000000003220',
      '4000000000000259',
      '378282246310005',
    ])
      expect(luhnValid(n), n).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('4242 4242 4242 4242')).toBe(true);
    expect(luhnValid('42424242')).toBe(false);
  });

  it('detects the brand from the first digits and groups as printed', () => {
    expect(detectBrand('4242')).toBe('visa');
    expect(detectBrand('5555555555554444')).toBe('mastercard');
    expect(detectBrand('2221000000000009')).toBe('mastercard');
    expect(detectBrand('378282246310005')).toBe('amex');
    expect(detectBrand('6011111111111117')).toBe('discover');
    expect(detectBrand('3530111333300000')).toBe('jcb');
    expect(detectBrand('')).toBe('unknown');
    expect(groupCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(groupCardNumber('378282246310005')).toBe('3782 822463 10005');
    expect(groupCardNumber('42424')).toBe('4242 4');
    expect(cvvLength('amex')).toBe(4);
    expect(cvvLength('visa')).toBe(3);
  });

  it('refuses an expiry in the past but accepts the current month', () => {
    expect(expiry('11', '2026', NOW)).toBeNull();
    expect(expiry('10', '2026', NOW)).toMatch(/expired/);
    expect(expiry('10', '26', NOW)).toMatch(/expired/);
    expect(expiry('13', '2030', NOW)).toMatch(/month/);
    expect(expiry('1', '2030', NOW)).toBeNull();
    expect(expiry('01', '230', NOW)).toMatch(/year/);
  });

  it('accepts a good form', () => {
    expect(check(form(), { now: NOW, limits })).toEqual({});
  });

  it('names each wrong field, without echoing card data', () => {
    const errs = check(
      form(
        { description: 'short', customerEmail: 'not-an-email', amount: '10.5' },
        { number: '4242424242424241', cvv: '12', expMonth: '01', expYear: '2020', firstName: ' ' },
      ),
      { now: NOW, limits },
    );
    expect(Object.keys(errs).sort()).toEqual([
      'amount',
      'card.cvv',
      'card.expMonth',
      'card.firstName',
      'card.number',
      'customerEmail',
      'description',
    ]);
    expect(errs.description).toMatch(/10 to 30 characters \(now 5\)/);
    expect(errs.amount).toMatch(/no decimals/);
    expect(errs['card.cvv']).toMatch(/3 digits/);
    for (const m of Object.values(errs)) {
      expect(m).not.toContain('4242424242424241');
      expect(m).not.toContain('12 ');
    }
  });

  it('wants 4 CVV digits for American Express', () => {
    const errs = check(form({}, { number: '378282246310005', cvv: '123' }), { now: NOW, limits });
    expect(errs['card.cvv']).toMatch(/4 digits for American Express/);
    expect(check(form({}, { number: '378282246310005', cvv: '1234' }), { now: NOW, limits })).toEqual({});
  });

  it('checks the amount against min, max and what remains today', () => {
    expect(check(form({ amount: '999' }), { now: NOW, limits }).amount).toMatch(/at least UGX 1,000/);
    expect(check(form({ amount: '5000001' }), { now: NOW, limits }).amount).toMatch(/at most UGX 5,000,000/);
    const nearlyFull = { ...limits, collectedTodayMinor: 9_990_000 };
    expect(check(form({ amount: '15000' }), { now: NOW, limits: nearlyFull }).amount).toMatch(
      /remains of today's limit \(UGX 10,000 of UGX 10,000,000\)/,
    );
    expect(check(form(), { now: NOW, limits: null }).currency).toMatch(/no active card option for UGX/);
    expect(parseAmount('1500.50', 2)).toEqual({ minor: 150050 });
    expect(parseAmount('1,500', 0)).toEqual({ minor: 1500 });
    expect(parseAmount('1e3', 0)).toHaveProperty('error');
    expect(parseAmount('0', 2)).toHaveProperty('error');
  });

  it('requires billing fields for the USA, Canada and Europe only', () => {
    expect(billingRequired('us')).toBe(true);
    expect(billingRequired('DE')).toBe(true);
    expect(billingRequired('GB')).toBe(true);
    expect(billingRequired('UG')).toBe(false);
    const errs = check(form({}, { billingCountry: 'CA' }), { now: NOW, limits });
    expect(Object.keys(errs).sort()).toEqual([
      'card.billingAddress',
      'card.billingCity',
      'card.billingState',
      'card.billingZip',
    ]);
    expect(errs['card.billingZip']).toMatch(/required for cards billed in CA/);
    expect(check(form({}, { billingCountry: 'KE' }), { now: NOW, limits })).toEqual({});
    expect(check(form({}, { billingCountry: 'USA' }), { now: NOW, limits })['card.billingCountry']).toMatch(/2-letter/);
  });

  it('accepts an optional PIN of 4 to 6 digits', () => {
    expect(check(form({}, { pin: '1234' }), { now: NOW, limits })).toEqual({});
    expect(check(form({}, { pin: '' }), { now: NOW, limits })).toEqual({});
    expect(check(form({}, { pin: '12a4' }), { now: NOW, limits })['card.pin']).toMatch(/PIN/);
  });

  it('parseCard: the one check of a card names the field at fault and never shows its value', () => {
    const good: CardFields = {
      number: '4242 4242 4242 4242',
      expMonth: '7',
      expYear: '2031',
      cvv: '123',
      firstName: 'Amina',
      lastName: 'Nakato',
    };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ number: '4242 4242 42' }, 'card.number', /has 10 digits/],
      [{ number: '4242424242424241' }, 'card.number', /check digit/],
      [{ number: '4242abcd42424242' }, 'card.number', /only digits/],
      [{ expMonth: '13' }, 'card.expMonth', /01 to 12/],
      [{ expMonth: '00' }, 'card.expMonth', /01 to 12/],
      [{ expYear: '203' }, 'card.expYear', /2 or 4 digits/],
      [{ cvv: '12' }, 'card.cvv', /3 digits/],
      [{ cvv: 123 }, 'card', /incomplete/],
      [{ firstName: '  ' }, 'card.firstName', /required/],
      [{ lastName: undefined }, 'card', /incomplete/],
      [{ billingCountry: 'USA' }, 'card.billingCountry', /2-letter/],
      [{ billingCity: 'Kampala\n' + 'x' }, 'card.billingCity', /control characters/],
      [{ firstName: 'Ami\u0000na' }, 'card.firstName', /control characters/],
      [{ pin: '12' }, 'card.pin', /4 to 6 digits/],
    ];
    for (const [patch, field, message] of cases) {
      const r = parseCard({ ...good, ...patch } as CardFields, NOW);
      expect(r.ok, JSON.stringify(patch)).toBe(false);
      if (r.ok) continue;
      expect(Object.keys(r.errors), JSON.stringify(patch)).toEqual([field]);
      const text = english(r.errors[field]!);
      expect(text).toMatch(message);
      for (const v of Object.values(patch))
        if (typeof v === 'string' && v.trim().length > 2) expect(text).not.toContain(v.trim());
      expect(text).not.toContain('4242');
      expect(JSON.stringify(r.errors[field])).not.toContain('4242');
    }
    // A field the card does not have is not carried into the card object the cipher takes.
    const extra = parseCard({ ...good, extra: '4242424242424242' } as CardFields, NOW);
    expect(extra.ok).toBe(true);
    if (extra.ok)
      expect(Object.keys(toCardData(extra.value))).toEqual([
        'first_name',
        'last_name',
        'card_no',
        'exp_month',
        'exp_year',
        'cvv',
      ]);
  });

  it('parseCard lists every problem at once, and refuses an expired card', () => {
    const r = parseCard({ number: '1', expMonth: '10', expYear: '2026', cvv: 'x', firstName: 'A', lastName: 'N' }, NOW);
    expect(r.ok ? [] : Object.keys(r.errors)).toEqual(['card.number', 'card.expMonth', 'card.cvv']);
    expect(r.ok ? '' : english(r.errors['card.expMonth']!)).toMatch(/expired/);
    expect(
      parseCard(
        { number: '4242424242424242', expMonth: '11', expYear: '26', cvv: '123', firstName: 'A', lastName: 'N' },
        NOW,
      ).ok,
    ).toBe(true);
  });

  it('parseCharge gives the amount in minor units and the form trimmed; validateCardForm is its errors', () => {
    const r = parseCharge(
      form({ amount: ' 15,000 ', currency: ' ugx ', description: '  Phone order 1234  ', customerName: '' }),
      { now: NOW, limits },
    );
    expect(r).toMatchObject({
      ok: true,
      value: {
        amountMinor: 15000,
        currency: 'UGX',
        description: 'Phone order 1234',
        customerName: null,
        chargeCustomer: false,
      },
    });
    const bad = form({ description: 'short' }, { number: '4242424242424241' });
    const p = parseCharge(bad, { now: NOW, limits });
    expect(p.ok ? {} : said(p.errors)).toEqual(check(bad, { now: NOW, limits }));
    expect(Object.keys(check(bad, { now: NOW, limits }))).toEqual(['description', 'card.number']);
    // The renderer checks its live form state: only parseCharge's own copy of the card is ever overwritten.
    expect(bad.card.number).toBe('4242424242424241');
  });
});
