// A charge while another process holds the database's write lock at the moment the service answers:
// the answer is never lost (the charge waits until it is stored), the payment window then opens, the
// collection ends PENDING with its page.
// Real sandbox over HTTP, real client and SQLite file; the lock is a real second process.
import { afterEach, describe, expect, it } from 'vitest';
import { createChargeService, type ChargeService } from '../../main/collections/charge/service.js';
import { createServiceClient } from '../../main/service/client.js';
import { getCollection } from '../../main/collections/query.js';
import { systemClock } from '../../main/clock.js';
import type { ServiceClient } from '../../main/service/types.js';
import type { PaymentWindowOpener } from '../../main/collections/payment-window.js';
import { CARDS, cardForm, REDIRECT_URL, startHarness, type Harness } from './harness.js';
import { holdWriteLock, type HeldLock } from '../store/second-process.js';

let h: Harness | undefined;
let charges: ChargeService | undefined;
afterEach(async () => {
  charges?.dispose();
  charges = undefined;
  await h?.close();
  h = undefined;
});

/** The charge service on the harness's database, with a second process taking the write lock for `ms` as the initialize answer arrives. */
function lockedAnswerCharges(hh: Harness, ms: number) {
  const real = createServiceClient({
    baseUrl: hh.sandbox.baseUrl,
    keys: () => ({ publicKey: hh.sandbox.publicKey, secretKey: hh.sandbox.secretKey }),
    timeoutMs: 10_000,
  });
  const state: {
    lock?: HeldLock;
    opened: { paymentUrl: string; statusAtOpen: string | null; urlAtOpen: string | null }[];
  } = { opened: [] };
  const client: ServiceClient = {
    getBalances: (c) => real.getBalances(c),
    getPaymentOptions: (q) => real.getPaymentOptions(q),
    async initialize(req) {
      const answer = await real.initialize(req);
      state.lock = await holdWriteLock(hh.db.name, ms);
      return answer;
    },
  };
  const window: PaymentWindowOpener = {
    async open({ paymentUrl }) {
      const row = hh.db.prepare('SELECT status, payment_url FROM collections ORDER BY id DESC LIMIT 1').get() as {
        status: string;
        payment_url: string | null;
      };
      state.opened.push({ paymentUrl, statusAtOpen: row.status, urlAtOpen: row.payment_url });
      return { kind: 'closed' };
    },
  };
  const service = createChargeService({
    db: hh.db,
    ledger: hh.ledger,
    getClient: () => client,
    getServicePublicKeyPem: () => hh.sandbox.servicePublicKeyPem,
    getSigningKey: () => hh.sandbox.signingKey,
    clock: systemClock,
    paymentWindow: window,
    redirectUrl: REDIRECT_URL,
    operator: 'Test Agent',
  });
  return { service, state };
}

describe('charge while the database is locked by another process', () => {
  it('the initialize answer waits for a 2 s lock: PENDING with its payment_url, and the payment window opens', async () => {
    h = await startHarness();
    const { service, state } = lockedAnswerCharges(h, 2000);
    charges = service;
    const r = await service.charge(cardForm(CARDS.approve));
    await state.lock!.released;
    expect(r.outcome.kind).toBe('window_closed');
    expect(state.opened).toHaveLength(1);
    const c = getCollection(h.db, r.collection!.merchantReference)!.collection;
    expect(c.status).toBe('PENDING');
    expect(c.paymentUrl).toBe(state.opened[0]!.paymentUrl);
    expect(h.sandbox.controls.collection(c.merchantReference).status).toBe('PENDING');
  });

  it('when the lock outlasts busy_timeout, the charge waits for it: the answer is stored before the window opens, nothing waits in memory', async () => {
    h = await startHarness();
    h.db.pragma('busy_timeout = 200');
    const { service, state } = lockedAnswerCharges(h, 2000);
    charges = service;
    const r = await service.charge(cardForm(CARDS.approve));
    expect(r.outcome.kind).toBe('window_closed');
    // The window opened only once the database had the service's answer: PENDING with its page.
    expect(state.opened).toHaveLength(1);
    expect(state.opened[0]).toMatchObject({ statusAtOpen: 'PENDING', urlAtOpen: state.opened[0]!.paymentUrl });
    const ref = r.collection!.merchantReference;
    await state.lock!.released;
    const got = getCollection(h.db, ref)!;
    expect(got.collection.status).toBe('PENDING');
    expect(got.collection.paymentUrl).toBe(state.opened[0]!.paymentUrl);
    expect(got.events.map((e) => `${e.source}:${e.kind}:${e.status ?? '-'}`)).toEqual([
      'intent:intent_saved:INTENT',
      'initiate:initialize_accepted:PENDING',
      'redirect:window_closed:-',
    ]);
  });
});
