// Issue 39: a callback's amounts are read from the digits the service sent (main/service/wire-json.ts), on
// the way in and when reconciliation reads the stored payload again: a request_amount of 74912820901925.32
// USD read through a double was 74912820901925.31, and the collection showed an amount mismatch.
import { describe, expect, it } from 'vitest';
import { ingestCallback } from '../../main/callbacks/ingest.js';
import { getCollection } from '../../main/collections/query.js';
import { reconcileCollection } from '../../main/reconcile/incremental.js';
import { freshDb, insertCollection } from '../collections/helpers.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from './support.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();
const ctx = { keys: { signingKey: SIGNING_KEY }, now: Date.UTC(2026, 10, 21), ledger };
const REF = 'MD-EXACT-0001';

/** The body as the service writes it: the amounts as JSON numbers with every digit. */
function bodyText(amount: string): { text: string; signature: string } {
  const body = callbackBody(REF, 'COMPLETED', { request_currency: 'USD', transaction_currency: 'USD' });
  const text = JSON.stringify(body)
    .replace('"request_amount":15000', `"request_amount":${amount}`)
    .replace('"transaction_amount":15000', `"transaction_amount":${amount}`);
  return { text, signature: hmacHeader(body) };
}

describe('callback amounts from the digits sent', () => {
  it('74912820901925.32 USD is 7491282090192532 cents: stored so, and the collection matches its intent', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: REF, currency: 'USD', amountMinor: 7491282090192532 });
    const { text, signature } = bodyText('74912820901925.32');
    const r = ingestCallback(db, { body: text, headers: { 'hmac-signature': signature }, source: 'callback' }, ctx);
    expect(r).toMatchObject({ result: 'imported', status: 'COMPLETED' });
    const c = getCollection(db, id)!;
    expect(c.events.at(-1)!.amountMinor).toBe(7491282090192532);
    expect(c.collection.flags).not.toContain('amount_mismatch');
    // Reconciliation reads the stored payload again: the same digits.
    const again = reconcileCollection(db, id, { now: ctx.now });
    expect(again!.kinds).not.toContain('amount_mismatch');
  });

  it('an amount too large to hold exactly keeps the signed outcome and names the field and the value sent', () => {
    const { db } = freshDb();
    insertCollection(db, { reference: REF, currency: 'USD', amountMinor: 100 });
    const { text, signature } = bodyText('123456789012345678.91');
    const r = ingestCallback(db, { body: text, headers: { 'hmac-signature': signature }, source: 'callback' }, ctx);
    expect(r).toMatchObject({ result: 'imported', status: 'COMPLETED' });
    expect((r as { warning?: string }).warning ?? '').toContain('123456789012345678.91');
  });
});
