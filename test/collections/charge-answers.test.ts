// How each kind of initialize answer is recorded, with a scripted client (the sandbox cannot produce
// some of them, e.g. a duplicate-reference answer without a payment_url). The cipher uses a real key.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createChargeService } from '../../main/collections/charge/service.js';
import { getCollection } from '../../main/collections/query.js';
import {
  AuthenticationError,
  DuplicateReferenceError,
  UnknownOutcomeError,
  ValidationError,
} from '../../main/service/errors.js';
import type { InitializeRequest, PaymentOption, ServiceClient } from '../../main/service/types.js';
import { freshDb } from './helpers.js';
import { cardForm, CARDS } from './harness.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

const { publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const OPTION: PaymentOption = {
  providerName: 'Card',
  providerCode: 'CARD_UGX',
  transactionMethod: 'CARD',
  transactionMethodName: 'Card',
  transactionType: 'Collection',
  currency: 'UGX',
  minMinor: 1000,
  maxMinor: 10_000_000,
  maxDailyMinor: 50_000_000,
  isActive: true,
  optionPrefixes: [],
};

function scripted(answers: ((r: InitializeRequest) => unknown)[]) {
  const sent: InitializeRequest[] = [];
  const client: ServiceClient = {
    getBalances: async () => [],
    getPaymentOptions: async () => [OPTION],
    initialize: async (r) => {
      sent.push(r);
      const a = answers.shift();
      if (!a) throw new Error('no more answers scripted');
      return a(r) as never;
    },
  };
  return { client, sent };
}

function service(client: ServiceClient, pem = PEM) {
  const { db } = freshDb();
  const s = createChargeService({
    db,
    ledger,
    getClient: () => client,
    getServicePublicKeyPem: () => pem,
    clock: { now: () => Date.now() },
    redirectUrl: 'https://merchant-desk.invalid/return',
    operator: 'agent',
  });
  return { db, s };
}

const card = () => ({
  number: CARDS.approve,
  expMonth: '12',
  expYear: '2031',
  cvv: '123',
  firstName: 'A',
  lastName: 'N',
});
const kinds = (db: ReturnType<typeof freshDb>['db'], id: number) =>
  getCollection(db, id)!.events.map((e) => `${e.kind}:${e.status ?? '-'}`);

describe('initialize answers', () => {
  it('401 on the first send is REJECTED (nothing was created) with the service message', async () => {
    const { client } = scripted([
      () => {
        throw new AuthenticationError('the service refused the keys', {
          status: 401,
          serviceMessage: 'Invalid public key',
        });
      },
    ]);
    const { db, s } = service(client);
    const r = await s.charge(cardForm(CARDS.approve));
    expect(r.outcome).toEqual({
      kind: 'rejected',
      message: 'Invalid public key',
      words: { id: 'errors.asIs', values: { text: 'Invalid public key' } },
    });
    expect(r.collection!.status).toBe('REJECTED');
    expect(r.collection!.statusMessage).toBe('Invalid public key');
    expect(kinds(db, r.collection!.id)).toEqual(['intent_saved:INTENT', 'initialize_rejected:REJECTED']);
  });

  it('a service field name is mapped to the form field', async () => {
    const { client } = scripted([
      () => {
        throw new ValidationError('card_cipher.cvv is required', 'card_cipher.cvv', {
          status: 422,
          serviceMessage: 'card_cipher.cvv is required',
        });
      },
    ]);
    const { s } = service(client);
    expect((await s.charge(cardForm(CARDS.approve))).outcome).toMatchObject({ kind: 'rejected', field: 'card.cvv' });
  });

  it('re-send: the same reference and amount; "exists" without a payment_url stays UNKNOWN; a refusal on re-send proves nothing', async () => {
    const { client, sent } = scripted([
      () => {
        throw new UnknownOutcomeError('no answer in 20 s', { reason: 'timeout' });
      },
      (r) => {
        throw new DuplicateReferenceError('duplicate merchant_reference', r.merchantReference, 'INT-9', undefined, {
          status: 422,
        });
      },
      () => {
        throw new ValidationError('card_cipher cannot be decrypted', 'card_cipher', { status: 422 });
      },
    ]);
    const { db, s } = service(client);
    const first = await s.charge(cardForm(CARDS.approve, { amount: '12345' }));
    expect(first.outcome.kind).toBe('unknown');
    const ref = first.collection!.merchantReference;
    const second = await s.resend(ref, card());
    expect(second.outcome.kind).toBe('unknown');
    expect(second.collection).toMatchObject({ status: 'UNKNOWN', internalReference: 'INT-9' });
    const third = await s.resend(ref, card());
    expect(third.outcome.kind).toBe('rejected');
    expect(third.collection!.status).toBe('UNKNOWN');
    expect(sent.map((x) => [x.merchantReference, x.amountMinor])).toEqual([
      [ref, 12345],
      [ref, 12345],
      [ref, 12345],
    ]);
    expect(new Set(sent.map((x) => x.cardCipher)).size).toBe(3); // a fresh cipher each time (PKCS#1 v1.5 is randomised)
    expect(kinds(db, first.collection!.id)).toEqual([
      'intent_saved:INTENT',
      'initialize_unknown:UNKNOWN',
      'initialize_exists:-',
      'initialize_rejected:-',
    ]);
  });

  it('an unusable service key is a settings problem, and nothing is saved or sent', async () => {
    const { client, sent } = scripted([]);
    const { db, s } = service(client, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----');
    await expect(s.charge(cardForm(CARDS.approve))).rejects.toMatchObject({
      kind: 'not_configured',
      message: expect.stringMatching(/certificate/),
    });
    expect(sent).toHaveLength(0);
    expect(db.prepare('SELECT count(*) AS n FROM collections').get()).toEqual({ n: 0 });
  });
});
