// Charging against the real sandbox over HTTP, with the real receiver, client, cipher and SQLite.
import { afterEach, describe, expect, it } from 'vitest';
import { getCollection, listCollections, collectedToday } from '../../main/collections/query.js';
import { startCallbackReceiver } from '../../main/callbacks/receiver.js';
import { systemClock } from '../../main/clock.js';
import { allFileBytes, CARDS, cardForm, leakNeedles, REDIRECT_URL, startHarness, type Harness } from './harness.js';
import { sqliteCallbackStore } from '../../main/callbacks/callback-store.js';

let h: Harness | undefined;
const usedNumbers = new Set<string>();
const usedCvvs = new Set<string>();
afterEach(async () => {
  if (h) {
    // Card data appears nowhere in the data folder (SQLite file, -wal, -shm, sandbox state).
    h.db.pragma('wal_checkpoint(PASSIVE)');
    const needles = leakNeedles([...usedNumbers], [...usedCvvs]);
    for (const { file, bytes } of allFileBytes(h.dataDir)) {
      for (const n of needles) expect(bytes.includes(n), `${n.toString()} found in ${file}`).toBe(false);
    }
    await h.close();
    h = undefined;
  }
  usedNumbers.clear();
  usedCvvs.clear();
});

function form(number: string, over: Parameters<typeof cardForm>[1] = {}) {
  const f = cardForm(number, over);
  usedNumbers.add(f.card.number);
  usedCvvs.add(f.card.cvv);
  return f;
}

async function settle(hh: Harness) {
  await hh.sandbox.controls.callbacksSettled(15_000);
}

function timeline(ref: string) {
  return getCollection(h!.db, ref)!.events.map((e) => `${e.source}:${e.kind}:${e.status ?? '-'}:${e.signature}`);
}

describe('charge', () => {
  it('approve: intent saved before sending, PENDING, redirect verified, callback agrees; the card object is wiped', async () => {
    h = await startHarness();
    const f = form(CARDS.approve);
    const r = await h.charges.charge(f);
    expect(r.outcome).toMatchObject({ kind: 'completed', verified: true, message: 'Approved' });
    expect(f.card).toMatchObject({ number: '', cvv: '', expMonth: '', expYear: '' });
    const ref = r.collection!.merchantReference;
    expect(ref).toMatch(/^MD-\d{8}-[A-Z2-9]{8}$/);
    await settle(h);
    const got = getCollection(h.db, ref)!;
    expect(got.collection).toMatchObject({
      status: 'COMPLETED',
      amountMinor: 25000,
      currency: 'UGX',
      cardBrand: 'visa',
      cardLast4: '4242',
      operator: 'Test Agent',
      flags: [],
      sources: { redirect: 'COMPLETED', callback: 'COMPLETED', agree: true, redirectSignature: 'verified' },
    });
    expect(got.collection.internalReference).toBeTruthy();
    expect(timeline(ref)).toEqual([
      'intent:intent_saved:INTENT:not_applicable',
      'initiate:initialize_accepted:PENDING:not_applicable',
      'redirect:outcome:COMPLETED:verified',
      'callback:outcome:COMPLETED:verified',
    ]);
    // The callback's raw payload is kept as received, with its amount recorded.
    const cb = got.events.find((e) => e.source === 'callback')!;
    expect(JSON.parse(cb.payload!)).toMatchObject({
      event: 'transaction.completed',
      payload: { merchant_reference: ref },
    });
    expect(cb).toMatchObject({ amountMinor: 25000, currency: 'UGX' });
    expect(h.sandbox.controls.collection(ref).status).toBe('COMPLETED');
  });

  it('decline and insufficient funds: FAILED with the service message; cancel: CANCELLED', async () => {
    h = await startHarness();
    h.plan = { action: 'complete', outcome: 'decline' };
    const d = await h.charges.charge(form(CARDS.decline));
    expect(d.outcome).toMatchObject({ kind: 'failed', message: 'Declined' });
    h.plan = { action: 'complete', outcome: 'insufficient_funds' };
    const i = await h.charges.charge(form(CARDS.insufficient, { amount: '26000' }));
    expect(i.outcome.kind).toBe('failed');
    h.plan = { action: 'complete', outcome: 'cancel' };
    const c = await h.charges.charge(form(CARDS.approve, { amount: '27000' }));
    expect(c.outcome).toMatchObject({ kind: 'cancelled', message: 'Cancelled' });
    await settle(h);
    expect(getCollection(h.db, d.collection!.id)!.collection).toMatchObject({
      status: 'FAILED',
      sources: { callback: 'FAILED', agree: true },
    });
    expect(getCollection(h.db, i.collection!.id)!.collection.statusMessage).toMatch(/insufficient/i);
    expect(getCollection(h.db, c.collection!.id)!.collection).toMatchObject({
      status: 'CANCELLED',
      sources: { callback: 'CANCELLED' },
    });
  });

  it('challenge card finished through the controls (the one-time code page is driven in e2e)', async () => {
    h = await startHarness();
    const r = await h.charges.charge(form(CARDS.challenge));
    expect(r.outcome.kind).toBe('completed');
    await settle(h);
    expect(getCollection(h.db, r.collection!.id)!.collection.status).toBe('COMPLETED');
  });

  it('the hosted page over HTTP: challenge with the right one-time code approves, a wrong code fails, Pay on a decline card fails', async () => {
    h = await startHarness();
    h.plan = { action: 'page', posts: [{ action: 'pay' }, { action: 'verify', otp: '123456' }] };
    const ok = await h.charges.charge(form(CARDS.challenge));
    expect(ok.outcome).toMatchObject({ kind: 'completed', verified: true });
    h.plan = { action: 'page', posts: [{ action: 'pay' }, { action: 'verify', otp: '000000' }] };
    const wrong = await h.charges.charge(form(CARDS.challenge, { amount: '26000' }));
    expect(wrong.outcome).toMatchObject({ kind: 'failed' });
    h.plan = { action: 'page', posts: [{ action: 'pay' }] };
    const declined = await h.charges.charge(form(CARDS.decline, { amount: '27000' }));
    expect(declined.outcome).toMatchObject({ kind: 'failed', message: 'Declined' });
    h.plan = { action: 'page', posts: [{ action: 'cancel' }] };
    const cancelled = await h.charges.charge(form(CARDS.approve, { amount: '28000' }));
    expect(cancelled.outcome.kind).toBe('cancelled');
    await settle(h);
    expect(getCollection(h.db, wrong.collection!.id)!.collection).toMatchObject({
      status: 'FAILED',
      statusMessage: expect.stringMatching(/one-time code/),
    });
    expect(getCollection(h.db, ok.collection!.id)!.collection.sources).toMatchObject({
      redirect: 'COMPLETED',
      callback: 'COMPLETED',
      agree: true,
    });
  });

  it('the flip card changes its final status when the sandbox clock passes 10 minutes', async () => {
    h = await startHarness({ window: false });
    const r = await h.charges.charge(form(CARDS.flip));
    const ref = r.collection!.merchantReference;
    await h.sandbox.controls.complete(ref, 'approve');
    await settle(h);
    expect(getCollection(h.db, ref)!.collection.status).toBe('COMPLETED');
    await h.sandbox.controls.advanceClock(11 * 60_000);
    await settle(h);
    expect(getCollection(h.db, ref)!.collection).toMatchObject({ status: 'FAILED', flags: ['final_status_changed'] });
  });

  it('callbacks sent while the receiver is down are retried by the service and stored once it is back', async () => {
    h = await startHarness({ window: false });
    const port = h.receiver.port;
    await h.receiver.close();
    const r = await h.charges.charge(form(CARDS.approve));
    const ref = r.collection!.merchantReference;
    await h.sandbox.controls.complete(ref, 'approve');
    await expect
      .poll(() => h!.sandbox.controls.callbackLog().filter((l) => l.status === 'network_error').length)
      .toBeGreaterThanOrEqual(2);
    expect(getCollection(h.db, ref)!.collection.status).toBe('PENDING');
    h.receiver = await startCallbackReceiver({
      db: h.db,
      store: sqliteCallbackStore(h.db, h.ledger),
      port,
      clock: systemClock,
      getKeys: () => ({ signingKey: h!.sandbox.signingKey, servicePublicKey: h!.sandbox.servicePublicKeyPem }),
    });
    await settle(h);
    expect(getCollection(h.db, ref)!.collection.status).toBe('COMPLETED');
    expect(h.sandbox.controls.callbackLog().at(-1)).toMatchObject({ status: 'delivered', http_status: 200 });
  });

  it('callback before the redirect: same result, nothing flagged', async () => {
    h = await startHarness();
    h.plan = { action: 'complete', outcome: 'approve', callbackFirst: true };
    const r = await h.charges.charge(form(CARDS.approve));
    expect(r.outcome.kind).toBe('completed');
    const ref = r.collection!.merchantReference;
    expect(timeline(ref).slice(2)).toEqual([
      'callback:outcome:COMPLETED:verified',
      'redirect:outcome:COMPLETED:verified',
    ]);
    expect(getCollection(h.db, ref)!.collection.flags).toEqual([]);
  });

  it('window closed early: stays PENDING (window_closed event); the callback resolves it', async () => {
    h = await startHarness();
    h.plan = { action: 'close' };
    const r = await h.charges.charge(form(CARDS.approve));
    expect(r.outcome.kind).toBe('window_closed');
    const ref = r.collection!.merchantReference;
    expect(getCollection(h.db, ref)!.collection.status).toBe('PENDING');
    await h.sandbox.controls.complete(ref, 'approve');
    await settle(h);
    expect(getCollection(h.db, ref)!.collection.status).toBe('COMPLETED');
    expect(timeline(ref)).toEqual([
      'intent:intent_saved:INTENT:not_applicable',
      'initiate:initialize_accepted:PENDING:not_applicable',
      'redirect:window_closed:-:not_applicable',
      'callback:outcome:COMPLETED:verified',
    ]);
  });

  it('a payment window that fails leaves the payment PENDING with the reason in its history', async () => {
    h = await startHarness();
    h.plan = { action: 'throw' };
    const r = await h.charges.charge(form(CARDS.approve));
    expect(r.outcome.kind).toBe('window_closed');
    const c = getCollection(h.db, r.collection!.id)!;
    expect(c.collection.status).toBe('PENDING');
    expect(c.events.at(-1)).toMatchObject({
      kind: 'window_closed',
      note: 'payment window failed: the window could not be created',
    });
  });

  it('a tampered redirect is recorded as unverified and does not change the status', async () => {
    h = await startHarness();
    h.plan = {
      action: 'redirect',
      outcome: 'decline',
      url: (u) => u.replace('transaction_status=FAILED', 'transaction_status=COMPLETED'),
    };
    const r = await h.charges.charge(form(CARDS.decline));
    expect(r.outcome).toMatchObject({ kind: 'unverified', status: 'COMPLETED' });
    const ref = r.collection!.merchantReference;
    expect(r.collection!.status).toBe('PENDING');
    expect(r.collection!.flags).toEqual(['bad_signature']);
    await settle(h);
    expect(getCollection(h.db, ref)!.collection.status).toBe('FAILED');
  });

  it('a redirect to anything but the configured URL is refused', async () => {
    h = await startHarness({ window: false });
    await expect(
      h.charges.handleRedirect('https://merchant-desk.invalid@evil.example/return?merchant_reference=X'),
    ).rejects.toMatchObject({
      kind: 'validation',
      field: 'url',
    });
    await expect(h.charges.handleRedirect(REDIRECT_URL + '?event=x')).rejects.toMatchObject({
      field: 'merchant_reference',
    });
  });

  it('final status changed (flip): a new flagged event, the newest status shows, history keeps both', async () => {
    h = await startHarness();
    const r = await h.charges.charge(form(CARDS.flip));
    expect(r.outcome.kind).toBe('completed');
    const ref = r.collection!.merchantReference;
    await settle(h);
    await h.sandbox.controls.flip(ref, 'FAILED');
    await settle(h);
    const c = getCollection(h.db, ref)!;
    expect(c.collection).toMatchObject({ status: 'FAILED', flags: ['final_status_changed'], finalChanges: 1 });
    expect(c.events.filter((e) => e.source === 'callback').map((e) => `${e.kind}:${e.status}`)).toEqual([
      'outcome:COMPLETED',
      'final_status_changed:FAILED',
    ]);
    expect(listCollections(h.db, { flagged: true }).rows.map((x) => x.merchantReference)).toEqual([ref]);
  });

  it('duplicate callbacks are stored once', async () => {
    h = await startHarness();
    h.sandbox.controls.setCallbackMode('duplicate');
    const r = await h.charges.charge(form(CARDS.approve));
    const ref = r.collection!.merchantReference;
    await settle(h);
    h.sandbox.controls.resendCallback(ref);
    await settle(h);
    expect(h.ingested.filter((o) => o.result === 'duplicate').length).toBeGreaterThanOrEqual(2);
    expect(getCollection(h.db, ref)!.events.filter((e) => e.source === 'callback')).toHaveLength(1);
  });

  it('out-of-order callbacks (reorder mode) each land on their own collection', async () => {
    h = await startHarness({ window: false });
    h.sandbox.controls.setCallbackMode('reorder');
    const refs: string[] = [];
    const outcomes = ['approve', 'decline', 'cancel'] as const;
    for (const o of outcomes) {
      const r = await h.charges.charge(
        form(o === 'decline' ? CARDS.decline : CARDS.approve, { amount: String(30000 + refs.length) }),
      );
      expect(r.outcome.kind).toBe('pending');
      refs.push(r.collection!.merchantReference);
      await h.sandbox.controls.complete(r.collection!.merchantReference, o);
    }
    expect(await h.sandbox.controls.releaseCallbacks()).toBe(3);
    await settle(h);
    expect(refs.map((ref) => getCollection(h!.db, ref)!.collection.status)).toEqual([
      'COMPLETED',
      'FAILED',
      'CANCELLED',
    ]);
    // Released newest first.
    expect(
      h.ingested.filter((o) => o.result === 'imported').map((o) => (o as { reference: string }).reference),
    ).toEqual([...refs].reverse());
  });

  it('rejected input (4xx): REJECTED with the service message and the form field', async () => {
    h = await startHarness();
    // An EU-issued card without billing fields: the sandbox refuses it.
    const r = await h.charges.charge(form(CARDS.eu));
    expect(r.outcome.kind).toBe('rejected');
    expect(r.outcome).toMatchObject({ field: expect.stringMatching(/^card\.billing/) });
    expect((r.outcome as { message: string }).message).toMatch(/billing/);
    expect(r.collection).toMatchObject({ status: 'REJECTED' });
    expect(h.windowsOpened).toBe(0);
    expect(timeline(r.collection!.merchantReference)).toEqual([
      'intent:intent_saved:INTENT:not_applicable',
      'initiate:initialize_rejected:REJECTED:not_applicable',
    ]);
    expect(h.sandbox.controls.state().collections).toBe(0);
  });

  it('local validation refuses before anything is saved or sent, naming the fields', async () => {
    h = await startHarness();
    const f = form('4242 4242 4242 4241', { description: 'too short', amount: '5' });
    await expect(h.charges.charge(f)).rejects.toMatchObject({
      kind: 'validation',
      fields: {
        'card.number': expect.any(String),
        description: expect.any(String),
        amount: expect.stringMatching(/at least UGX 1,000/),
      },
    });
    expect(f.card.number).toBe('');
    expect(listCollections(h.db).total).toBe(0);
  });

  it('unknown outcome on a dropped connection, then resend with the same reference: "it exists"', async () => {
    h = await startHarness();
    h.sandbox.controls.addFault({ route: 'initialize', kind: 'drop_after_commit' });
    const r = await h.charges.charge(form(CARDS.approve));
    expect(r.outcome.kind).toBe('unknown');
    expect(r.outcome.message).toMatch(/same reference/);
    const ref = r.collection!.merchantReference;
    expect(r.collection!.status).toBe('UNKNOWN');
    expect(h.windowsOpened).toBe(0);
    // The sandbox did create it.
    expect(h.sandbox.controls.collection(ref).status).toBe('PENDING');

    // A different card is refused for the re-send.
    await expect(
      h.charges.resend(ref, {
        number: CARDS.mastercardUS,
        expMonth: '12',
        expYear: '2031',
        cvv: '123',
        firstName: 'A',
        lastName: 'N',
      }),
    ).rejects.toMatchObject({ field: 'card.number' });
    usedNumbers.add(CARDS.mastercardUS);

    const again = await h.charges.resend(ref, {
      number: CARDS.approve,
      expMonth: '12',
      expYear: '2031',
      cvv: '555',
      firstName: 'Amina',
      lastName: 'Nakato',
    });
    usedCvvs.add('555');
    expect(again.collection!.merchantReference).toBe(ref);
    expect(again.outcome.kind).toBe('completed');
    await settle(h);
    expect(timeline(ref)).toEqual([
      'intent:intent_saved:INTENT:not_applicable',
      'initiate:initialize_unknown:UNKNOWN:not_applicable',
      'initiate:initialize_exists:PENDING:not_applicable',
      'redirect:outcome:COMPLETED:verified',
      'callback:outcome:COMPLETED:verified',
    ]);
    expect(h.sandbox.controls.state().collections).toBe(1);
    // Only an unknown payment can be re-sent.
    await expect(
      h.charges.resend(ref, {
        number: CARDS.approve,
        expMonth: '12',
        expYear: '2031',
        cvv: '555',
        firstName: 'Amina',
        lastName: 'Nakato',
      }),
    ).rejects.toMatchObject({ kind: 'conflict' });
  });

  it("unknown outcome on a 503 and on an HTML answer; never retried behind the agent's back", async () => {
    h = await startHarness();
    h.sandbox.controls.addFault({ route: 'initialize', kind: '503' });
    const a = await h.charges.charge(form(CARDS.approve));
    expect(a.outcome.kind).toBe('unknown');
    h.sandbox.controls.addFault({ route: 'initialize', kind: 'html' });
    const b = await h.charges.charge(form(CARDS.approve, { amount: '31000' }));
    expect(b.outcome.kind).toBe('unknown');
    expect(listCollections(h.db, { status: 'UNKNOWN' }).total).toBe(2);
  });

  it('the same card and amount within minutes needs confirmation; nothing about it is stored', async () => {
    h = await startHarness({ window: false });
    const first = await h.charges.charge(form(CARDS.approve, { amount: '40000' }));
    expect(first.outcome.kind).toBe('pending');
    const second = await h.charges.charge(form(CARDS.approve, { amount: '40000' }));
    expect(second.outcome.kind).toBe('needs_confirmation');
    expect(second.collection).toBeNull();
    expect(listCollections(h.db).total).toBe(1);
    // A different amount is not a repeat.
    const other = await h.charges.charge(form(CARDS.approve, { amount: '40001' }));
    expect(other.outcome.kind).toBe('pending');
    const token = (second.outcome as { token: string }).token;
    const confirmed = await h.charges.confirmRepeat(token);
    expect(confirmed.outcome.kind).toBe('pending');
    await expect(h.charges.confirmRepeat(token)).rejects.toMatchObject({ kind: 'expired' });
    expect(listCollections(h.db).total).toBe(3);
  });

  it("options show the card limits with today's collected total", async () => {
    h = await startHarness({ window: false });
    const before = (await h.charges.options()).find((o) => o.currency === 'UGX')!;
    expect(before).toMatchObject({ providerCode: 'CARD_UGX', minMinor: 1000, collectedTodayMinor: 0 });
    await h.charges.charge(form(CARDS.approve, { amount: '50000' }));
    const after = (await h.charges.options()).find((o) => o.currency === 'UGX')!;
    expect(after.collectedTodayMinor).toBe(50000);
    expect(after.remainingTodayMinor).toBe(before.maxDailyMinor - 50000);
    expect(collectedToday(h.db, 'UGX', Date.now())).toBe(50000);
  });
});
