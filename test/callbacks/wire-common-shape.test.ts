// parseCallbackBody reads the usual callback without the schema: it must give exactly what the schema
// gives, and leave to the schema (and its messages naming the field) everything else.
import { describe, expect, it } from 'vitest';
import { parseCallbackBody, parseCallbackBodyWithSchema } from '../../main/service/callback-wire.js';
import { WireFormatError } from '../../main/service/errors.js';

const body = (over: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
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
    charge_customer: false,
    provider_code: 'CARD_KES',
    customer_name: 'A Customer',
    transaction_status: 'completed ',
    status_message: 'Approved',
    extra_field: { kept: true },
    ...over,
  },
  ...top,
});

function outcome(parse: (v: unknown) => unknown, v: unknown): unknown {
  try {
    return { ok: parse(v) };
  } catch (e) {
    if (!(e instanceof WireFormatError)) throw e;
    return { field: e.field, message: e.message };
  }
}

const cases: [string, unknown][] = [
  ['the usual body', body()],
  ['nulls for the optional fields', body({ id: null, customer_name: null, status_message: null, provider_code: null })],
  [
    'optional fields left out',
    body({
      id: undefined,
      request_currency: undefined,
      request_amount: undefined,
      transaction_currency: undefined,
      transaction_amount: undefined,
      transaction_charge: undefined,
      total_credit: undefined,
      charge_customer: undefined,
    }),
  ],
  [
    'numbers as references',
    body({ merchant_reference: 12, internal_reference: 34, transaction_status: 5 }, { event: 7 }),
  ],
  ['lower-case currency with spaces', body({ request_currency: ' kes ', transaction_currency: 'ugx' })],
  ['a boolean as text', body({ charge_customer: 'TRUE' })],
  ['a boolean as a number', body({ charge_customer: 0 })],
  ['a bad boolean', body({ charge_customer: 'maybe' })],
  ['too many decimals', body({ total_credit: 1447.985 })],
  ['an amount without its currency', body({ transaction_currency: undefined })],
  ['an unknown currency', body({ request_currency: 'XXX1' })],
  ['a currency that is not text', body({ request_currency: 5 })],
  ['an amount that is not a number', body({ request_amount: true })],
  ['an amount that is not a decimal', body({ request_amount: '12abc' })],
  ['a missing signed field', body({ merchant_reference: undefined })],
  ['a signed field of the wrong type', body({ internal_reference: { a: 1 } })],
  ['a customer name that is a number', body({ customer_name: 5 })],
  ['a status message that is an object', body({ status_message: {} })],
  ['no payload', { event: 'x' }],
  ['a payload that is an array', { event: 'x', payload: [] }],
  ['no event', body({}, { event: undefined })],
  ['an array', []],
  ['text', 'not json'],
  ['null', null],
];

describe('parseCallbackBody without the schema', () => {
  it.each(cases)('%s: the same result or error as the schema', (_name, v) => {
    expect(outcome(parseCallbackBody, v)).toEqual(outcome(parseCallbackBodyWithSchema, v));
  });
  it('keeps the body as received', () => {
    const raw = body();
    expect(parseCallbackBody(raw).raw).toBe(raw);
  });
});
