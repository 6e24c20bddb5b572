import { describe, expect, it } from 'vitest';
import { balancesDataSchema, initializeDataSchema, providersDataSchema } from '../../main/service/wire.js';
import { parseWire } from '../../main/service/wire-values.js';
import { parseCallbackBody } from '../../main/service/callback-wire.js';
import { WireFormatError } from '../../main/service/errors.js';

const bal = (over: Record<string, unknown> = {}) => ({
  available_balance: 1500000,
  actual_balance: 1750000,
  uncleared_balance: 200000,
  reserve_balance: 50000,
  currency: 'UGX',
  wallet_type: 'MERCHANT_COLLECTION',
  ...over,
});

function wireError(fn: () => unknown): WireFormatError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WireFormatError);
    return e as WireFormatError;
  }
  throw new Error('expected a WireFormatError');
}

describe('balance records', () => {
  it('reads amounts by the currency exponent, from numbers or strings, ignoring extra fields', () => {
    const out = parseWire(balancesDataSchema, {
      merchant_balances: [
        bal(),
        bal({
          currency: 'kes',
          wallet_type: 'merchant_payout',
          available_balance: '1234.5',
          actual_balance: 1234.5,
          uncleared_balance: '0',
          reserve_balance: '0.00',
          extra: { x: 1 },
        }),
      ],
      other: true,
    });
    expect(out.merchant_balances).toEqual([
      {
        currency: 'UGX',
        walletType: 'MERCHANT_COLLECTION',
        availableMinor: 1500000,
        actualMinor: 1750000,
        unclearedMinor: 200000,
        reserveMinor: 50000,
      },
      {
        currency: 'KES',
        walletType: 'MERCHANT_PAYOUT',
        availableMinor: 123450,
        actualMinor: 123450,
        unclearedMinor: 0,
        reserveMinor: 0,
      },
    ]);
    expect(parseWire(balancesDataSchema, { merchant_balances: [] }).merchant_balances).toEqual([]);
  });

  it('rejects more decimals than the currency allows, naming the record and field', () => {
    const e = wireError(() =>
      parseWire(balancesDataSchema, { merchant_balances: [bal(), bal(), bal({ available_balance: 10.5 })] }),
    );
    expect(e.field).toBe('merchant_balances[2].available_balance');
    expect(e.message).toBe('merchant_balances[2].available_balance: "10.5" has more decimals than UGX allows (0)');
    expect(
      wireError(() =>
        parseWire(balancesDataSchema, { merchant_balances: [bal({ currency: 'USD', reserve_balance: '0.001' })] }),
      ).field,
    ).toBe('merchant_balances[0].reserve_balance');
  });

  it('rejects wrong types, unknown currency or wallet type, missing fields, with a message a person can act on', () => {
    const cases: [unknown, string, RegExp][] = [
      [
        { merchant_balances: [bal({ actual_balance: true })] },
        'merchant_balances[0].actual_balance',
        /must be a number, got true/,
      ],
      [
        { merchant_balances: [bal({ actual_balance: '1,000' })] },
        'merchant_balances[0].actual_balance',
        /not a plain decimal/,
      ],
      [
        { merchant_balances: [bal({ currency: 'XYZ' })] },
        'merchant_balances[0].currency',
        /unknown currency code "XYZ"/,
      ],
      [
        { merchant_balances: [bal({ wallet_type: 'SAVINGS' })] },
        'merchant_balances[0].wallet_type',
        /not a wallet type/,
      ],
      [
        { merchant_balances: [bal({ uncleared_balance: undefined })] },
        'merchant_balances[0].uncleared_balance',
        /is missing/,
      ],
      [{}, 'merchant_balances', /is missing/],
      [{ merchant_balances: 'none' }, 'merchant_balances', /must be an array/],
    ];
    for (const [data, field, msg] of cases) {
      const e = wireError(() => parseWire(balancesDataSchema, data));
      expect(e.field).toBe(field);
      expect(e.problem).toMatch(msg);
    }
  });
});

describe('payment provider records', () => {
  const rec = (over: Record<string, unknown> = {}) => ({
    provider_name: 'MTN Mobile Money',
    provider_code: 'MTN_UG',
    transaction_method: 'MOBILE_MONEY',
    transaction_method_name: 'Mobile Money',
    transaction_type: 'Collection',
    transaction_currency: 'UGX',
    min_amount: 500,
    max_amount: '5000000',
    max_daily_amount: 20000000,
    is_active: true,
    option_prefixes: ['25677', 25678],
    ...over,
  });
  it('reads limits in minor units, booleans written as strings, prefixes as strings', () => {
    const [a, b] = parseWire(providersDataSchema, {
      payment_providers: [
        rec(),
        rec({
          transaction_currency: 'USD',
          min_amount: '1.50',
          is_active: 'false',
          option_prefixes: null,
          transaction_method_name: undefined,
        }),
      ],
    }).payment_providers;
    expect(a).toEqual({
      providerName: 'MTN Mobile Money',
      providerCode: 'MTN_UG',
      transactionMethod: 'MOBILE_MONEY',
      transactionMethodName: 'Mobile Money',
      transactionType: 'Collection',
      currency: 'UGX',
      minMinor: 500,
      maxMinor: 5000000,
      maxDailyMinor: 20000000,
      isActive: true,
      optionPrefixes: ['25677', '25678'],
    });
    expect(b).toMatchObject({
      currency: 'USD',
      minMinor: 150,
      maxMinor: 500000000,
      isActive: false,
      optionPrefixes: [],
      transactionMethodName: '',
    });
  });
  it('rejects a boolean that is neither true nor false and amounts finer than the currency', () => {
    expect(
      wireError(() => parseWire(providersDataSchema, { payment_providers: [rec({ is_active: 'yes' })] })).message,
    ).toBe('payment_providers[0].is_active: must be true or false, got "yes"');
    expect(
      wireError(() => parseWire(providersDataSchema, { payment_providers: [rec(), rec({ max_daily_amount: 0.5 })] }))
        .field,
    ).toBe('payment_providers[1].max_daily_amount');
  });
});

describe('initialize data', () => {
  it("needs a payment_url (whether the desk opens it is service-url.ts's check); references may be numbers", () => {
    expect(
      parseWire(initializeDataSchema, {
        payment_url: 'https://pay.example/p/1',
        internal_reference: 123,
        merchant_reference: 'MD-1',
      }),
    ).toMatchObject({
      internal_reference: '123',
    });
    expect(wireError(() => parseWire(initializeDataSchema, { internal_reference: 'x' })).message).toBe(
      'payment_url: is missing',
    );
    expect(wireError(() => parseWire(initializeDataSchema, { payment_url: 42 })).message).toBe(
      'payment_url: must be a string, got 42',
    );
  });
});

describe('callback bodies', () => {
  const body = (over: Record<string, unknown> = {}) => ({
    event: 'transaction.completed',
    payload: {
      id: 981,
      merchant_reference: 'MD-20261121-0001',
      internal_reference: 'INT-7f3a9c',
      transaction_type: 'Collection',
      request_currency: 'KES',
      request_amount: 1500.5,
      transaction_currency: 'KES',
      transaction_amount: '1500.50',
      transaction_charge: 52.52,
      total_credit: 1447.98,
      charge_customer: 'false',
      provider_code: 'CARD_KES',
      customer_name: null,
      transaction_status: 'completed ',
      status_message: 'Approved',
      ...over,
    },
  });
  it('keeps the signed fields as sent and converts amounts', () => {
    const raw = body();
    const c = parseCallbackBody(raw);
    expect(c.signed).toEqual({
      event: 'transaction.completed',
      merchant_reference: 'MD-20261121-0001',
      internal_reference: 'INT-7f3a9c',
      transaction_type: 'Collection',
      transaction_status: 'completed ',
    });
    expect(c.transactionStatus).toBe('COMPLETED');
    expect(c).toMatchObject({
      requestAmountMinor: 150050,
      transactionAmountMinor: 150050,
      transactionChargeMinor: 5252,
      totalCreditMinor: 144798,
      chargeCustomer: false,
      id: '981',
    });
    expect(c.raw).toBe(raw);
  });
  it('names the bad field of a callback', () => {
    expect(wireError(() => parseCallbackBody(body({ total_credit: 1447.985 }))).field).toBe('payload.total_credit');
    expect(wireError(() => parseCallbackBody(body({ merchant_reference: undefined }))).message).toBe(
      'payload.merchant_reference: is missing',
    );
    expect(wireError(() => parseCallbackBody(body({ transaction_currency: undefined }))).message).toMatch(
      /payload.transaction_amount: is given but transaction_currency is missing/,
    );
    expect(wireError(() => parseCallbackBody('not json')).field).toBe('(body)');
  });
});
