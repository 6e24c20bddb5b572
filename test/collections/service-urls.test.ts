// Issue 39: every URL the service gives is checked the same way before it is kept. An initialize answered
// 409 or 422 (the duplicate path) with "payment_url": "javascript:alert(1)" left the collection PENDING with
// that URL stored; the success path checked only for http(s). Against the real sandbox over HTTP, its
// `answer` fault (a test control) standing in for a service that answers so.
import { afterEach, describe, expect, it } from 'vitest';
import { getCollection } from '../../main/collections/query.js';
import { cardForm, CARDS, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function answer(status: number, body: object) {
  h!.sandbox.controls.addFault({
    route: 'initialize',
    kind: 'answer',
    http_status: status,
    body: JSON.stringify(body),
  });
}

/** What a charge left: the collection's status and page, the outcome, and the initialize events. */
async function chargeOnce() {
  const r = await h!.charges.charge(cardForm(CARDS.approve));
  const got = getCollection(h!.db, r.collection!.merchantReference)!;
  return {
    outcome: r.outcome,
    status: got.collection.status,
    paymentUrl: got.collection.paymentUrl,
    stored: got.events.map((e) => e.payload ?? '').join('\n'),
  };
}

describe('a payment_url the desk will not open', () => {
  it.each([409, 422])(
    'duplicate path (HTTP %i) with javascript: is refused; the collection is not PENDING with it',
    async (status) => {
      h = await startHarness();
      answer(status, {
        code: status,
        status: 'error',
        message: 'duplicate merchant_reference',
        data: { field: 'merchant_reference', payment_url: 'javascript:alert(1)' },
      });
      const r = await chargeOnce();
      expect(r.outcome.kind).toBe('unknown');
      expect(r.outcome.message).toBe(
        'The service already has this payment, but the page it named (payment_url "javascript:alert(1)") is not an https address, so the desk will not open it; wait for its callback.',
      );
      expect(r.status).not.toBe('PENDING');
      expect(r.paymentUrl).toBeNull();
      expect(h.windowsOpened).toBe(0);
      expect(r.stored).not.toContain('"payment_url":"javascript:alert(1)"');
    },
  );

  it.each([
    ['javascript:alert(1)', 'is not an https address'],
    ['http://pay.example/p/1', 'is not an https address'],
    ['https://user:pw@pay.example/p/1', 'carries a user name or password'],
    ['https://pay.example/p/1\n<script>', 'has spaces or control characters'],
  ])('accepted (202) with %s: an unknown outcome naming the URL; not PENDING with it', async (url, why) => {
    h = await startHarness();
    answer(202, {
      code: 202,
      status: 'accepted',
      message: 'Collection initialized',
      data: { internal_reference: 'INT-1', payment_url: url },
    });
    const r = await chargeOnce();
    expect(r.outcome.kind).toBe('unknown');
    expect(r.outcome.message).toContain(`payment_url ${JSON.stringify(url).slice(0, 30)}`);
    expect(r.outcome.message).toContain(why);
    expect(r.status).toBe('UNKNOWN');
    expect(r.paymentUrl).toBeNull();
    expect(h.windowsOpened).toBe(0);
  });

  it("the loopback sandbox's own http page is still opened, as before", async () => {
    h = await startHarness();
    const r = await chargeOnce();
    expect(r.outcome.kind).toBe('completed');
    expect(r.paymentUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pay\//);
  });
});
