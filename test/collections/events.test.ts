import { describe, expect, it } from 'vitest';
import { getCollection, listCollections } from '../../main/collections/query.js';
import { listOrphanCallbacks } from '../../main/reconcile/index.js';
import { freshDb, insertCollection, outcome } from './helpers.js';
import { testLedger } from '../support/ledger.js';

const { ledger } = testLedger();

describe('the ledger and the collections projection', () => {
  it('the first final status sets the status; a repeat with the same dedupe key is a no-op', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-A-00000001' });
    const a = outcome(db, id, 'MD-A-00000001', 'callback', 'COMPLETED', {
      dedupeKey: 'k1',
      amountMinor: 15000,
      currency: 'UGX',
    });
    const b = outcome(db, id, 'MD-A-00000001', 'callback', 'COMPLETED', {
      dedupeKey: 'k1',
      amountMinor: 15000,
      currency: 'UGX',
    });
    expect(a.inserted).toBe(true);
    expect(b).toMatchObject({ inserted: false, eventId: a.eventId });
    const got = getCollection(db, 'MD-A-00000001')!;
    expect(got.collection.status).toBe('COMPLETED');
    expect(got.collection.sources).toMatchObject({ callback: 'COMPLETED', redirect: null, agree: true });
    expect(got.collection.flags).toEqual([]);
    expect(got.events).toHaveLength(1);
  });

  it('a later different final status from the same verified source is a flagged final_status_changed event; history keeps both', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-B-00000001' });
    outcome(db, id, 'MD-B-00000001', 'redirect', 'COMPLETED', { dedupeKey: 'r' });
    outcome(db, id, 'MD-B-00000001', 'callback', 'COMPLETED', { dedupeKey: 'c1', amountMinor: 15000, currency: 'UGX' });
    const flip = outcome(db, id, 'MD-B-00000001', 'callback', 'FAILED', {
      dedupeKey: 'c2',
      amountMinor: 15000,
      currency: 'UGX',
    });
    expect(flip.kind).toBe('final_status_changed');
    const got = getCollection(db, id)!;
    expect(got.collection.status).toBe('FAILED');
    expect(got.collection.flags).toContain('final_status_changed');
    expect(got.collection.finalChanges).toBe(1);
    expect(got.events.map((e) => [e.source, e.kind, e.status])).toEqual([
      ['redirect', 'outcome', 'COMPLETED'],
      ['callback', 'outcome', 'COMPLETED'],
      ['callback', 'final_status_changed', 'FAILED'],
    ]);
  });

  it('redirect and callback that disagree are flagged; the newest verified one shows', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-C-00000001' });
    outcome(db, id, 'MD-C-00000001', 'callback', 'FAILED', { dedupeKey: 'c' });
    outcome(db, id, 'MD-C-00000001', 'redirect', 'COMPLETED', { dedupeKey: 'r' });
    const c = getCollection(db, id)!.collection;
    expect(c.status).toBe('COMPLETED');
    expect(c.flags).toEqual(['sources_disagree']);
    expect(c.sources).toMatchObject({ redirect: 'COMPLETED', callback: 'FAILED', agree: false });
  });

  it('unverified events never change the status, but flag it', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-D-00000001' });
    outcome(db, id, 'MD-D-00000001', 'redirect', 'COMPLETED', { signature: 'invalid' });
    ledger.append(db, {
      collectionId: id,
      merchantReference: 'MD-D-00000001',
      source: 'security',
      kind: 'bad_signature',
      status: 'COMPLETED',
      receivedAt: 1,
      signature: 'missing',
    });
    const c = getCollection(db, id)!.collection;
    expect(c.status).toBe('PENDING');
    expect(c.flags).toEqual(['bad_signature']);
    expect(c.sources.redirect).toBeNull();
    expect(c.sources.redirectSignature).toBe('invalid');
  });

  it('records an amount or currency that differs from the intent', () => {
    const { db } = freshDb();
    const a = insertCollection(db, { reference: 'MD-E-00000001' });
    const b = insertCollection(db, { reference: 'MD-E-00000002' });
    outcome(db, a, 'MD-E-00000001', 'callback', 'COMPLETED', { amountMinor: 14000, currency: 'UGX' });
    outcome(db, b, 'MD-E-00000002', 'callback', 'COMPLETED', { amountMinor: 15000, currency: 'KES' });
    expect(getCollection(db, a)!.collection.flags).toEqual(['amount_mismatch']);
    expect(getCollection(db, b)!.collection.flags).toEqual(['currency_mismatch']);
    expect(getCollection(db, a)!.events[0]).toMatchObject({ amountMinor: 14000, currency: 'UGX' });
  });

  it('initiate events move a non-final status only', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-F-00000001', status: 'INTENT' });
    ledger.append(db, {
      collectionId: id,
      merchantReference: 'MD-F-00000001',
      source: 'initiate',
      kind: 'initialize_unknown',
      status: 'UNKNOWN',
      receivedAt: 2,
      signature: 'not_applicable',
    });
    expect(getCollection(db, id)!.collection.status).toBe('UNKNOWN');
    outcome(db, id, 'MD-F-00000001', 'callback', 'CANCELLED');
    ledger.append(db, {
      collectionId: id,
      merchantReference: 'MD-F-00000001',
      source: 'initiate',
      kind: 'initialize_exists',
      status: 'PENDING',
      receivedAt: 3,
      signature: 'not_applicable',
      paymentUrl: 'http://x/pay/1',
    });
    const c = getCollection(db, id)!.collection;
    expect(c.status).toBe('CANCELLED');
    expect(c.paymentUrl).toBe('http://x/pay/1');
  });

  it('the history is append-only', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-G-00000001' });
    outcome(db, id, 'MD-G-00000001', 'callback', 'COMPLETED');
    expect(() => db.prepare(`UPDATE collection_events SET status = 'FAILED'`).run()).toThrow(/append-only/);
    expect(() => db.prepare(`DELETE FROM collection_events`).run()).toThrow(/append-only/);
  });

  it('orphans are kept and listed', () => {
    const { db } = freshDb();
    ledger.append(db, {
      collectionId: null,
      merchantReference: 'NOT-OURS-1',
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: 5,
      signature: 'verified',
      payload: '{}',
    });
    const o = listOrphanCallbacks(db);
    expect(o.total).toBe(1);
    expect(o.rows[0]).toMatchObject({ merchantReference: 'NOT-OURS-1', source: 'callback', status: 'COMPLETED' });
    expect(listCollections(db).total).toBe(0);
  });
});
