// Issue 39: an answer that says it failed is not a success. A balance answer with HTTP 200, code 200 and
// status "declined" ("Account suspended") was recorded as the merchant's balances; only "error" was refused.
// A success is a 2xx whose code is 2xx and whose status is success (initialize: accepted too, DESIGN.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../main/service/client.js';
import { DeclinedError, ServiceError, UnknownOutcomeError } from '../../main/service/errors.js';
import { startStub, type Stub } from './stub.js';

const KEYS = { publicKey: 'pk_test_PUBLIC_1234567', secretKey: 'sk_test_SECRET_7654321' };
const BALANCE = {
  available_balance: 1000,
  actual_balance: 1000,
  uncleared_balance: 0,
  reserve_balance: 0,
  currency: 'UGX',
  wallet_type: 'MERCHANT_COLLECTION',
};
const REQ = {
  merchantReference: 'MD-20261121-0001',
  currency: 'KES',
  amountMinor: 150050,
  description: 'Phone order 1234',
  cardCipher: 'Q0lQSEVSVEVYVF9USEFUX01VU1RfTk9UX0xFQUs=',
  redirectUrl: 'https://merchant.example/return',
};

let stub: Stub;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(async () => {
  await stub.close();
});

const client = () =>
  createServiceClient({ baseUrl: stub.baseUrl, keys: () => KEYS, retries: 2, sleep: async () => {} });

async function caught(p: Promise<unknown>): Promise<ServiceError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ServiceError);
  return e as ServiceError;
}

describe('a 2xx whose status is not success', () => {
  it.each(['declined', 'failed', 'Pending', 'FAILURE'])(
    'balances with status %s: refused with what the service said, asked once',
    async (status) => {
      stub.reply({
        status: 200,
        body: { code: 200, status, message: 'Account suspended', data: { merchant_balances: [BALANCE] } },
      });
      const e = await caught(client().getBalances());
      expect(e).toBeInstanceOf(DeclinedError);
      expect(e.message).toBe(`The service answered the balance inquiry with status "${status}": Account suspended.`);
      expect(e.serviceMessage).toBe('Account suspended');
      expect(stub.seen.splice(0)).toHaveLength(1); // an answer, not a fault: not asked again
    },
  );

  it('payment options with status declined: refused the same way, without a message too', async () => {
    stub.reply({ status: 200, body: { code: 200, status: 'declined', data: { payment_providers: [] } } });
    const e = await caught(client().getPaymentOptions({ currency: 'UGX', transactionType: 'COLLECTION' }));
    expect(e).toBeInstanceOf(DeclinedError);
    expect(e.message).toBe('The service answered the payment options list with status "declined".');
    stub.seen.splice(0);
  });

  it('success in any case, and an envelope that gives no status, are still taken', async () => {
    stub.reply(
      { status: 200, body: { code: 200, status: 'SUCCESS', message: 'ok', data: { merchant_balances: [BALANCE] } } },
      { status: 200, body: { code: 200, data: { merchant_balances: [BALANCE] } } },
    );
    expect(await client().getBalances()).toHaveLength(1);
    expect(await client().getBalances()).toHaveLength(1);
    stub.seen.splice(0);
  });

  it('initialize: 202 accepted and 200 success are taken; 200 failed is an unknown outcome with the words', async () => {
    const data = {
      internal_reference: 'INT-1',
      merchant_reference: REQ.merchantReference,
      payment_url: 'https://pay.example/p/1',
    };
    stub.reply(
      { status: 202, body: { code: 202, status: 'accepted', message: 'ok', data } },
      { status: 200, body: { code: 200, status: 'success', message: 'ok', data } },
      { status: 200, body: { code: 200, status: 'failed', message: 'Card issuer unavailable', data } },
    );
    expect((await client().initialize(REQ)).paymentUrl).toBe('https://pay.example/p/1');
    expect((await client().initialize(REQ)).paymentUrl).toBe('https://pay.example/p/1');
    const e = await caught(client().initialize(REQ));
    expect(e).toBeInstanceOf(UnknownOutcomeError);
    expect(e.message).toContain('with status "failed": Card issuer unavailable');
    expect(e.message).toContain('unknown');
    expect(e.serviceMessage).toBe('Card issuer unavailable');
    stub.seen.splice(0);
  });

  it('"accepted" is initialize\'s word only: a balance answer that says accepted is not a success', async () => {
    stub.reply({ status: 200, body: { code: 200, status: 'accepted', data: { merchant_balances: [BALANCE] } } });
    expect(await caught(client().getBalances())).toBeInstanceOf(DeclinedError);
    stub.seen.splice(0);
  });
});
