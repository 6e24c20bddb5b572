import { describe, expect, it } from 'vitest';
import {
  reconcileAll,
  reconcileAllInWorker,
  reconcileCollection,
  reconcileEvent,
  getSummary,
  listExceptions,
  getDetail,
  resolveException,
  listAudit,
  listOrphanCallbacks,
} from '../../main/reconcile/index.js';
import { History, testDb, ledger, reconciler } from './fixtures.js';

const STALE = 30 * 60_000;

function setup() {
  const { db } = testDb();
  const h = new History(db);
  const at = () => ({ now: h.t + 1000, stalePendingAfterMs: STALE });
  return { db, h, at };
}

describe('classification of constructed histories', () => {
  it('matched: accepted, verified redirect and callback agree, amounts equal', () => {
    const { db, h, at } = setup();
    const id = h.collection();
    h.accepted(id);
    h.redirect(id, 'COMPLETED');
    h.callback(id, 'COMPLETED');
    const r = reconcileCollection(db, id, at())!;
    expect(r.outcome).toBe('matched');
    expect(r.kinds).toEqual(['matched']);
    expect(r.isException).toBe(false);
    expect(r.sources).toMatchObject({ initiate: 'PENDING', redirect: 'COMPLETED', callback: 'COMPLETED' });
  });

  it('a declined payment whose sources agree is matched too', () => {
    const { db, h, at } = setup();
    const id = h.collection();
    h.accepted(id);
    h.callback(id, 'FAILED');
    h.redirect(id, 'FAILED');
    expect(reconcileCollection(db, id, at())!.outcome).toBe('matched');
  });

  it('pending, then stale_pending once the configured time passes with no outcome', () => {
    const { db, h } = setup();
    const id = h.collection();
    const sent = h.t + 500;
    h.accepted(id, sent);
    h.redirect(id, 'COMPLETED'); // a redirect alone is evidence, not proof
    expect(reconcileCollection(db, id, { now: sent + STALE - 1, stalePendingAfterMs: STALE })!.outcome).toBe('pending');
    const later = reconcileCollection(db, id, { now: sent + STALE, stalePendingAfterMs: STALE })!;
    expect(later.outcome).toBe('stale_pending');
    expect(later.isException).toBe(true);
    // the threshold is configurable
    expect(reconcileCollection(db, id, { now: sent + STALE, stalePendingAfterMs: 2 * STALE })!.outcome).toBe('pending');
  });

  it('redirect_callback_disagree: redirect says COMPLETED, callback says FAILED', () => {
    const { db, h, at } = setup();
    const id = h.collection();
    h.accepted(id);
    h.redirect(id, 'COMPLETED');
    h.callback(id, 'FAILED');
    const r = reconcileCollection(db, id, at())!;
    expect(r.outcome).toBe('redirect_callback_disagree');
    expect(r.kinds).not.toContain('final_status_changed');
  });

  it('final_status_changed: callback COMPLETED then FAILED; the redirect still agrees with the first', () => {
    const { db, h, at } = setup();
    const id = h.collection();
    h.accepted(id);
    h.redirect(id, 'COMPLETED');
    h.callback(id, 'COMPLETED');
    h.callback(id, 'FAILED');
    const r = reconcileCollection(db, id, at())!;
    expect(r.kinds).toEqual(['final_status_changed']);
    expect(r.sources.callback).toBe('FAILED');
  });

  it('amount_mismatch and currency_mismatch against the intent, from columns or from the payload', () => {
    const { db, h, at } = setup();
    const a = h.collection({ amountMinor: 150_000, currency: 'UGX' });
    h.accepted(a);
    h.callback(a, 'COMPLETED', { amountMinor: 15_000 });
    expect(reconcileCollection(db, a, at())!.outcome).toBe('amount_mismatch');

    const b = h.collection({ amountMinor: 2_500, currency: 'KES' });
    h.accepted(b);
    h.callback(b, 'COMPLETED', { amountMinor: 2_500, currency: 'TZS' });
    expect(reconcileCollection(db, b, at())!.outcome).toBe('currency_mismatch');

    const c = h.collection({ amountMinor: 2_550, currency: 'USD' });
    h.accepted(c);
    h.callback(c, 'COMPLETED', { amountMinor: 2_500, payloadOnly: true });
    expect(reconcileCollection(db, c, at())!.outcome).toBe('amount_mismatch');

    const d = h.collection({ amountMinor: 2_550, currency: 'USD' });
    h.accepted(d);
    h.callback(d, 'COMPLETED', { payloadOnly: true });
    expect(reconcileCollection(db, d, at())!.outcome).toBe('matched');
  });

  it('bad_signature: a security event or an unverified redirect; it changes nothing else', () => {
    const { db, h, at } = setup();
    const a = h.collection();
    h.accepted(a);
    h.callback(a, 'COMPLETED');
    h.badSignature(a);
    const r = reconcileCollection(db, a, at())!;
    expect(r.kinds).toEqual(['bad_signature']);

    const b = h.collection();
    h.accepted(b);
    h.redirect(b, 'FAILED', { signature: 'invalid' });
    h.callback(b, 'COMPLETED');
    const rb = reconcileCollection(db, b, at())!;
    expect(rb.kinds).toEqual(['bad_signature']); // the forged FAILED is not counted as a disagreement
    expect(rb.sources.redirect).toBeNull();
  });

  it('unknown_outcome after a timeout; a later re-send that finds it exists makes it pending', () => {
    const { db, h, at } = setup();
    const id = h.collection();
    h.unknown(id);
    expect(reconcileCollection(db, id, at())!.outcome).toBe('unknown_outcome');
    h.event(id, { source: 'initiate', kind: 'initialize_exists', status: 'PENDING' });
    expect(reconcileCollection(db, id, at())!.outcome).toBe('pending');
  });

  it('rejected: the service refused, nothing was created, not an exception', () => {
    const { db, h, at } = setup();
    const id = h.collection();
    h.rejected(id);
    const r = reconcileCollection(db, id, at())!;
    expect(r.outcome).toBe('rejected');
    expect(r.isException).toBe(false);
  });

  it('several kinds at once, the most serious is the primary outcome', () => {
    const { db, h, at } = setup();
    const id = h.collection({ amountMinor: 100_000 });
    h.accepted(id);
    h.redirect(id, 'CANCELLED');
    h.callback(id, 'COMPLETED', { amountMinor: 90_000 });
    h.callback(id, 'FAILED', { amountMinor: 90_000 });
    const r = reconcileCollection(db, id, at())!;
    expect(r.kinds).toEqual(['amount_mismatch', 'redirect_callback_disagree', 'final_status_changed']);
    expect(r.outcome).toBe('amount_mismatch');
  });

  it('orphan callbacks (unknown reference) are counted and can be resolved', () => {
    const { db, h, at } = setup();
    const ev = h.orphanCallback('SOMEONE-ELSES-REF');
    expect(getSummary(db, at()).openByKind.orphan_callback).toBe(1);
    expect(listOrphanCallbacks(db).rows[0]).toMatchObject({
      eventId: ev,
      merchantReference: 'SOMEONE-ELSES-REF',
      status: 'COMPLETED',
    });
    resolveException(
      ledger,
      db,
      { orphanEventId: ev, note: 'Belongs to the web shop, not this desk', actor: 'Ann' },
      at(),
    );
    expect(getSummary(db, at()).openByKind.orphan_callback).toBe(0);
    expect(listOrphanCallbacks(db, { includeResolved: true }).rows[0]!.resolvedByEventId).toBeGreaterThan(ev);
  });

  it('a resolution already stored under its key (a team desk pulled its own copy back first) is that resolution, not a conflict', async () => {
    const { prepareResolution } = await import('../../main/reconcile/index.js');
    const { db, h, at } = setup();
    const ev = h.orphanCallback('SOMEONE-ELSES-REF');
    const input = { orphanEventId: ev, note: 'Belongs to the web shop', actor: 'Ann' };
    const pulled = ledger.append(db, { ...prepareResolution(db, input, at()), dedupeKey: 'manual:resolution:k1' });
    expect(getSummary(db, at()).openByKind.orphan_callback ?? 0).toBe(0);
    const { eventId } = resolveException(ledger, db, { ...input, dedupeKey: 'manual:resolution:k1' }, at());
    expect(eventId).toBe(pulled.eventId);
    expect(listAudit(db, { kind: 'resolution' }).total).toBe(1);
  });
});

describe('incremental and full reconciliation', () => {
  it('reconciling after each event gives the same table as a full recompute on a varied history', async () => {
    const { db, h } = setup();
    const opts = () => ({ now: h.t, stalePendingAfterMs: STALE });
    const ids: number[] = [];
    const after = (id: number, fn: () => void) => {
      fn();
      reconcileCollection(db, id, opts());
    };
    const currencies = ['UGX', 'KES', 'USD', 'TZS'];
    for (let i = 0; i < 240; i++) {
      const id = h.collection({ amountMinor: 1000 + i * 7, currency: currencies[i % 4]! });
      reconcileCollection(db, id, opts());
      ids.push(id);
      const v = i % 12;
      if (v === 0) continue; // intent only, goes stale
      if (v === 1) after(id, () => h.unknown(id));
      else if (v === 2) after(id, () => h.rejected(id));
      else after(id, () => h.accepted(id));
      if (v === 3) continue; // pending
      if (v === 4) after(id, () => h.callback(id, 'COMPLETED'));
      if (v === 5) {
        after(id, () => h.redirect(id, 'COMPLETED'));
        after(id, () => h.callback(id, 'FAILED'));
      }
      if (v === 6) {
        after(id, () => h.callback(id, 'COMPLETED'));
        after(id, () => h.callback(id, 'FAILED'));
      }
      if (v === 7) after(id, () => h.callback(id, 'COMPLETED', { amountMinor: 1 }));
      if (v === 8) after(id, () => h.callback(id, 'COMPLETED', { currency: 'EUR' }));
      if (v === 9) after(id, () => h.badSignature(id));
      if (v === 10) {
        after(id, () => h.callback(id, 'CANCELLED'));
        after(id, () => h.redirect(id, 'CANCELLED'));
      }
      if (v === 11) {
        after(id, () => h.callback(id, 'COMPLETED', { amountMinor: 5 }));
        after(id, () =>
          resolveException(
            ledger,
            db,
            { collectionId: id, note: 'Customer paid the difference in cash', actor: 'Ann' },
            opts(),
          ),
        );
      }
      h.tick(60_000);
    }
    h.tick(STALE);
    // incremental catch-up at the same moment a full run happens (stale times move with the clock)
    reconciler.due(db, opts());
    const snapshot = () =>
      db
        .prepare(
          'SELECT collection_id, outcome, kinds, open_kinds, is_exception, last_event_id, stale_at, resolved_by_event_id, resolution_note, initiate_status, redirect_status, callback_status, import_status, manual_status, completed_at FROM reconciliation ORDER BY collection_id',
        )
        .all();
    const incremental = snapshot();
    const outcomes = new Set(incremental.map((r) => (r as { outcome: string }).outcome));
    expect([...outcomes].sort()).toEqual(
      [
        'amount_mismatch',
        'bad_signature',
        'currency_mismatch',
        'final_status_changed',
        'matched',
        'redirect_callback_disagree',
        'rejected',
        'stale_pending',
        'unknown_outcome',
      ].sort(),
    );
    db.exec('DELETE FROM reconciliation');
    const progress: number[] = [];
    const res = await reconcileAll(db, { ...opts(), batchSize: 50, onProgress: (p) => progress.push(p.done) });
    expect(res.collections).toBe(240);
    expect(progress.at(-1)).toBe(240);
    expect(progress.length).toBeGreaterThan(3);
    expect(snapshot()).toEqual(incremental);
    // the same on a worker thread (what reconcile.run and "reconcile --full" use)
    db.exec('DELETE FROM reconciliation');
    const seen: number[] = [];
    const viaWorker = await reconcileAllInWorker(db.name, {
      ...opts(),
      batchSize: 100,
      onProgress: (p) => seen.push(p.done),
    });
    expect(viaWorker).toEqual({ collections: 240, exceptions: res.exceptions });
    expect(seen.at(-1)).toBe(240);
    expect(snapshot()).toEqual(incremental);
  });

  it('Reconciler.due re-classifies what no event drives (a pending collection that turned stale), nothing else', () => {
    const { db, h } = setup();
    const a = h.collection();
    h.accepted(a);
    // Every stored event was reconciled as it was stored: nothing is due.
    expect(reconciler.due(db, { now: h.t, stalePendingAfterMs: STALE })).toBe(0);
    h.callback(a, 'COMPLETED');
    expect(reconciler.due(db, { now: h.t, stalePendingAfterMs: STALE })).toBe(0);
    const b = h.collection();
    h.accepted(b);
    expect(reconciler.due(db, { now: h.t + STALE, stalePendingAfterMs: STALE })).toBe(1);
    expect(reconciler.due(db, { now: h.t + STALE, stalePendingAfterMs: STALE })).toBe(0);
    expect(getSummary(db, { now: h.t + STALE, stalePendingAfterMs: STALE }).byOutcome).toMatchObject({
      matched: 1,
      stale_pending: 1,
    });
  });

  it('a full run can be cancelled between ranges; each finished range is whole, the rest untouched', async () => {
    const { db, h } = setup();
    for (let i = 0; i < 30; i++) h.accepted(h.collection());
    const byRun = () =>
      db.prepare('SELECT computed_at = ? AS full_run, COUNT(*) AS n FROM reconciliation GROUP BY 1 ORDER BY 1');
    const later = h.t + 10 * STALE; // every collection is stale by then
    const ac = new AbortController();
    await expect(
      reconcileAll(db, {
        now: later,
        stalePendingAfterMs: STALE,
        batchSize: 10,
        signal: ac.signal,
        onProgress: (p) => p.done >= 10 && ac.abort(),
      }),
    ).rejects.toThrow(/cancelled/);
    expect(byRun().all(later)).toEqual([
      { full_run: 0, n: 20 },
      { full_run: 1, n: 10 },
    ]);
    expect(db.prepare("SELECT COUNT(*) FROM reconciliation WHERE outcome = 'stale_pending'").pluck().get()).toBe(10);
  });
});

describe('exceptions queue', () => {
  it('lists open exceptions with filters and counts by kind', () => {
    const { db, h, at } = setup();
    const a = h.collection({ currency: 'UGX' });
    h.accepted(a);
    h.callback(a, 'COMPLETED', { amountMinor: 1 });
    const b = h.collection({ currency: 'KES', amountMinor: 5000 });
    h.accepted(b);
    h.redirect(b, 'COMPLETED');
    h.callback(b, 'FAILED');
    const c = h.collection();
    h.accepted(c);
    h.callback(c, 'COMPLETED');
    const all = listExceptions(db, {}, at());
    expect(all.total).toBe(2);
    expect(all.rows.map((r) => r.merchantReference).sort()).toEqual(
      [a, b].map((id) => db.prepare('SELECT merchant_reference FROM collections WHERE id = ?').pluck().get(id)).sort(),
    );
    expect(all.countsByKind).toMatchObject({ amount_mismatch: 1, redirect_callback_disagree: 1, stale_pending: 0 });
    expect(listExceptions(db, { kind: 'amount_mismatch' }, at()).rows.map((r) => r.collectionId)).toEqual([a]);
    expect(listExceptions(db, { currency: 'KES' }, at()).rows.map((r) => r.collectionId)).toEqual([b]);
    expect(() => listExceptions(db, { kind: 'nonsense' }, at())).toThrow(/kind must be one of/);
  });

  it('detail shows every source side by side with the raw payloads', () => {
    const { db, h, at } = setup();
    const id = h.collection({ amountMinor: 2500, currency: 'USD' });
    h.accepted(id);
    h.redirect(id, 'COMPLETED');
    h.callback(id, 'FAILED');
    const d = getDetail(db, id, at());
    const by = Object.fromEntries(d.sources.map((s) => [s.source, s]));
    expect(by.intent).toMatchObject({ amountMinor: 2500, currency: 'USD' });
    expect(by.initiate!.status).toBe('PENDING');
    expect(by.redirect).toMatchObject({ status: 'COMPLETED', signature: 'verified' });
    expect(by.callback).toMatchObject({ status: 'FAILED', signature: 'verified', amountMinor: 2500 });
    expect(d.reconciliation!.outcome).toBe('redirect_callback_disagree');
    const cb = d.events.find((e) => e.source === 'callback')!;
    expect((JSON.parse(cb.payload!) as { payload: { transaction_status: string } }).payload.transaction_status).toBe(
      'FAILED',
    );
    expect(() => getDetail(db, 99_999)).toThrow(/no collection with id 99999/);
  });

  it('resolution requires a note, is an appended event, and never rewrites history', () => {
    const { db, h, at } = setup();
    const id = h.collection();
    h.accepted(id);
    h.callback(id, 'COMPLETED', { amountMinor: 1 });
    const before = db.prepare('SELECT * FROM collection_events ORDER BY id').all();
    expect(() => resolveException(ledger, db, { collectionId: id, note: '  ', actor: 'Ann' }, at())).toThrow(
      /note is required/,
    );
    expect(() => resolveException(ledger, db, { collectionId: id, note: 'ok ok', actor: '' }, at())).toThrow(
      /actor is required/,
    );
    expect(db.prepare('SELECT * FROM collection_events ORDER BY id').all()).toEqual(before); // nothing written

    const { eventId } = resolveException(
      ledger,
      db,
      { collectionId: id, note: 'Refunded the difference, ticket 88', actor: 'Ann' },
      at(),
    );
    const after = db.prepare('SELECT * FROM collection_events ORDER BY id').all();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.at(-1)).toMatchObject({
      id: eventId,
      source: 'manual',
      kind: 'resolution',
      note: 'Refunded the difference, ticket 88',
      actor: 'Ann',
    });
    expect(listExceptions(db, {}, at()).total).toBe(0);
    const resolved = listExceptions(db, { includeResolved: true }, at());
    expect(resolved.rows[0]).toMatchObject({
      collectionId: id,
      isException: false,
      resolutionNote: 'Refunded the difference, ticket 88',
      outcome: 'amount_mismatch',
    });
    expect(() => resolveException(ledger, db, { collectionId: id, note: 'again', actor: 'Ann' }, at())).toThrow(
      /no open exception/,
    );
    expect(() => db.prepare('UPDATE collection_events SET note = ? WHERE id = ?').run('x', eventId)).toThrow(
      /append-only/,
    );

    // a new problem after the resolution re-opens it
    h.callback(id, 'FAILED', { amountMinor: 1 });
    const reopened = listExceptions(db, {}, at());
    expect(reopened.rows[0]!.openKinds).toEqual(['amount_mismatch', 'final_status_changed']);

    const audit = listAudit(db, { collectionId: id });
    // appendEvent stores the callback's changed answer as kind 'final_status_changed'
    expect(audit.rows.map((e) => e.kind)).toEqual([
      'final_status_changed',
      'resolution',
      'outcome',
      'initialize_accepted',
      'intent_saved',
    ]);
    expect(listAudit(db, { kind: 'resolution' }).total).toBe(1);
  });
});

describe('histories written by the payments ingestion (the ledger)', () => {
  it("a flip stored as kind 'final_status_changed' is still an outcome; bad signatures and mismatches are classified", async () => {
    const { db, h, at } = setup();
    const id = h.collection({ amountMinor: 100_000, currency: 'UGX' });
    const ref = db.prepare('SELECT merchant_reference FROM collections WHERE id = ?').pluck().get(id) as string;
    const base = { collectionId: id, merchantReference: ref, internalReference: 'INT-1' };
    ledger.append(db, {
      ...base,
      source: 'initiate',
      kind: 'initialize_accepted',
      status: 'PENDING',
      receivedAt: h.tick(),
      signature: 'not_applicable',
    });
    ledger.append(db, {
      ...base,
      source: 'redirect',
      kind: 'outcome',
      status: 'COMPLETED',
      receivedAt: h.tick(),
      signature: 'verified',
    });
    const cb = (status: string) =>
      ledger.append(db, {
        ...base,
        source: 'callback',
        kind: 'outcome',
        status,
        receivedAt: h.tick(),
        signature: 'verified',
        amountMinor: 100_000,
        currency: 'UGX',
        dedupeKey: 'cb:' + status,
        payload: JSON.stringify(h.callbackBody(id, status)),
      });
    cb('COMPLETED');
    expect(reconcileCollection(db, id, at())!.outcome).toBe('matched');
    const flip = cb('FAILED');
    expect(flip.kind).toBe('final_status_changed');
    const r = reconcileEvent(db, flip.eventId, at())!; // the receiver's onIngest step
    expect(reconcileEvent(db, h.orphanCallback('NOT-OURS'), at())).toBeNull();
    expect(r.kinds).toEqual(['final_status_changed']);
    expect(r.sources.callback).toBe('FAILED');

    ledger.append(db, {
      ...base,
      source: 'security',
      kind: 'bad_signature',
      status: 'COMPLETED',
      receivedAt: h.tick(),
      signature: 'invalid',
    });
    expect(reconcileCollection(db, id, at())!.kinds).toEqual(['bad_signature', 'final_status_changed']);

    const { eventId } = resolveException(
      ledger,
      db,
      { collectionId: id, note: 'Issuer reversed it; customer informed', actor: 'Ann' },
      at(),
    );
    const last = db.prepare('SELECT last_event_id FROM collections WHERE id = ?').pluck().get(id);
    expect(last).toBe(eventId); // the projection saw the resolution event too
    expect(listExceptions(db, {}, at()).total).toBe(0);
  });
});
