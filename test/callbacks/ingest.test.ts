import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, ingestCallback } from '../../main/callbacks/ingest.js';
import { getCollection } from '../../main/collections/query.js';
import { freshDb, insertCollection } from '../collections/helpers.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from './support.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

describe('ingestCallback dedupe keys', () => {
  it('a retry of a callback stored under the earlier key format (callback:<digest>) is still a duplicate', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-L-00000001' });
    const body = callbackBody('MD-L-00000001');
    const digest = crypto.createHash('sha256').update(canonicalJson(body)).digest('hex');
    // As a version before the reference-led key stored it.
    const old = ledger.append(db, {
      collectionId: id,
      merchantReference: 'MD-L-00000001',
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: Date.UTC(2026, 10, 20),
      signature: 'verified',
      dedupeKey: 'callback:' + digest,
      payload: JSON.stringify(body),
    });
    const ctx = { keys: { signingKey: SIGNING_KEY }, now: Date.UTC(2026, 10, 21), ledger };
    const again = ingestCallback(
      db,
      { body: JSON.stringify(body, null, 1), headers: { 'hmac-signature': hmacHeader(body) }, source: 'callback' },
      ctx,
    );
    expect(again).toMatchObject({ result: 'duplicate', reference: 'MD-L-00000001', eventId: old.eventId });
    expect(getCollection(db, id)!.events).toHaveLength(1);
    // A different callback for the same collection is new, and its own retry a duplicate.
    const failed = callbackBody('MD-L-00000001', 'FAILED');
    const first = ingestCallback(
      db,
      { body: JSON.stringify(failed), headers: { 'hmac-signature': hmacHeader(failed) }, source: 'callback' },
      ctx,
    );
    expect(first).toMatchObject({ result: 'imported', status: 'FAILED' });
    const retry = ingestCallback(
      db,
      { body: JSON.stringify(failed), headers: { 'hmac-signature': hmacHeader(failed) }, source: 'import' },
      ctx,
    );
    expect(retry).toMatchObject({ result: 'duplicate' });
    expect(getCollection(db, id)!.events.map((e) => e.status)).toEqual(['COMPLETED', 'FAILED']);
  });
});
