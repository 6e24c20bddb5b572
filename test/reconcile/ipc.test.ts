import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../main/ipc/dispatch.js';
import { createEventBus } from '../../main/app/event-bus.js';
import { pushToRenderer } from '../../main/ipc/push.js';
import { reconcileHandlers } from '../../main/ipc/handlers/reconcile.js';
import { deskOperations } from '../../main/app/desk-operations.js';
import { deskQueries } from '../../main/app/desk-queries.js';
import { defaultSettings } from '../../main/settings/index.js';
import type { Core } from '../../main/app/core.js';
import type { HandlerTable } from '../../main/ipc/handlers/types.js';
import { History, ledger, testDb } from './fixtures.js';
import { recordBalanceRun } from '../../main/store/sqlite/balances.js';

/** The reconciliation handlers over the operations and reads bound to a (fake) desk, as composeCore binds them. */
const handlersOf = (core: Core) => reconcileHandlers(deskOperations(core), deskQueries(core));

function fakeCore(db: Core['db'], now: () => number) {
  const events = createEventBus();
  const seen: { event: string; payload: unknown }[] = [];
  pushToRenderer(events, (event, payload) => seen.push({ event, payload }));
  const settings = { ...defaultSettings(), operatorName: 'Ann Back-Office' };
  const closers: (() => void)[] = [];
  const core = {
    db,
    ledger,
    clock: { now },
    settings: () => settings,
    events,
    onClose: (fn: () => void) => closers.push(fn),
  } as unknown as Core;
  return { core, seen, close: () => closers.forEach((fn) => fn()) };
}

function addCollections(db: Core['db'], n: number, t0 = Date.UTC(2026, 0, 10)) {
  db.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
     INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, operator, redirect_url, status, status_changed_at)
     SELECT 'REF-' || printf('%08d', i), ? + i, 100 + i, 'UGX', 'Order ' || i, 'op', 'https://merchant-desk.invalid/return', 'PENDING', ? + i FROM seq`,
  ).run(n, t0, t0);
}

describe('reconcile over IPC', () => {
  it('lists, details and resolves exceptions; a missing note is a validation error naming the field', async () => {
    const { db } = testDb();
    const h = new History(db);
    const id = h.collection({ amountMinor: 5000, currency: 'KES' });
    h.accepted(id);
    h.callback(id, 'COMPLETED', { amountMinor: 4000 });
    const { core } = fakeCore(db, () => h.t);
    const call = createDispatcher({ ...handlersOf(core) } as unknown as HandlerTable);

    const summary = await call('reconcile.summary', {});
    expect(summary).toMatchObject({ ok: true, value: { openExceptions: 1, openByKind: { amount_mismatch: 1 } } });
    const list = await call('reconcile.exceptions', { kind: 'amount_mismatch', currency: 'kes' });
    expect(list.ok && (list.value as { total: number }).total).toBe(1);
    const bad = await call('reconcile.exceptions', { kind: 'whatever' });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation', field: 'kind' } });
    const detail = await call('reconcile.detail', { collectionId: id });
    expect(detail.ok && JSON.parse(JSON.stringify(detail.value))).toEqual(detail.ok && detail.value); // plain JSON

    const noNote = await call('reconcile.resolve', { collectionId: id, note: ' ' });
    expect(noNote).toMatchObject({ ok: false, error: { kind: 'validation', field: 'note' } });
    const ok = await call('reconcile.resolve', { collectionId: id, note: 'Partial capture confirmed with the bank' });
    expect(ok.ok).toBe(true);
    const audit = await call('reconcile.audit', { collectionId: id, kind: 'resolution' });
    expect(audit).toMatchObject({
      ok: true,
      value: { total: 1, rows: [{ actor: 'Ann Back-Office', note: 'Partial capture confirmed with the bank' }] },
    });
    const again = await call('reconcile.resolve', { collectionId: id, note: 'second time' });
    expect(again).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    const run = await call('reconcile.run', { runId: 'r1' });
    expect(run).toMatchObject({ ok: true, value: { collections: 1, exceptions: 0 } });
    expect(await call('reconcile.run', {})).toMatchObject({ ok: false, error: { kind: 'validation', field: 'runId' } });
  });

  it('the queue pages through every exception (no 1,000-row ceiling) and lists the currencies the merchant has', async () => {
    const { db } = testDb();
    const h = new History(db);
    for (let i = 0; i < 1_200; i++) {
      // Paid less than asked: an amount mismatch each.
      const id = h.collection({ amountMinor: 5000, currency: i % 3 === 0 ? 'KES' : 'UGX' });
      h.accepted(id);
      h.callback(id, 'COMPLETED', { amountMinor: 4000 });
    }
    recordBalanceRun(db, {
      startedAt: 1,
      finishedAt: 2,
      result: {
        ok: true,
        value: [
          {
            currency: 'TZS',
            walletType: 'MERCHANT_COLLECTION',
            availableMinor: 0,
            actualMinor: 0,
            unclearedMinor: 0,
            reserveMinor: 0,
          },
        ],
      },
    });
    const { core } = fakeCore(db, () => h.t);
    const call = createDispatcher({ ...handlersOf(core) } as unknown as HandlerTable);
    type Page = { rows: { collectionId: number }[]; total: number };
    const first = (await call('reconcile.exceptions', { offset: 0, limit: 1000 })) as { ok: true; value: Page };
    const second = (await call('reconcile.exceptions', { offset: 1000, limit: 1000 })) as { ok: true; value: Page };
    expect(first.value.total).toBe(1_200);
    expect(first.value.rows).toHaveLength(1000);
    expect(second.value.rows).toHaveLength(200);
    const ids = new Set([...first.value.rows, ...second.value.rows].map((r) => r.collectionId));
    expect(ids.size).toBe(1_200);
    expect(await call('reconcile.currencies', {})).toEqual({ ok: true, value: ['KES', 'TZS', 'UGX'] });
  });

  it('the audit shows a callback payload byte for byte (big integers, number spelling, duplicate keys, spacing kept)', async () => {
    const { db } = testDb();
    const h = new History(db);
    const id = h.collection({ amountMinor: 5000, currency: 'UGX' });
    h.accepted(id);
    const raw =
      '{"event":"transaction.completed", "payload":{"id":12345678901234567890,"request_amount":5000.00,"x":1,"x":2}}';
    h.event(id, {
      source: 'callback',
      kind: 'outcome',
      status: 'COMPLETED',
      signature: 'verified',
      amountMinor: 5000,
      currency: 'UGX',
      payload: raw,
    });
    const { core } = fakeCore(db, () => h.t);
    const call = createDispatcher({ ...handlersOf(core) } as unknown as HandlerTable);
    const audit = (await call('reconcile.audit', { collectionId: id, source: 'callback' })) as {
      ok: true;
      value: { rows: { payload: unknown }[] };
    };
    expect(audit.value.rows[0]!.payload).toBe(raw);
  });

  it('a full run (on a worker thread) reports progress and can be cancelled by id; one run at a time; a later run completes', async () => {
    const { db } = testDb();
    addCollections(db, 60_000);
    const { core, seen } = fakeCore(db, () => Date.UTC(2026, 1, 1));
    const call = createDispatcher({ ...handlersOf(core) } as unknown as HandlerTable);
    expect(db.prepare('SELECT COUNT(*) FROM reconciliation').pluck().get()).toBe(0);
    const first = call('reconcile.run', { runId: 'r1' });
    expect(await call('reconcile.run', { runId: 'r2' })).toMatchObject({
      ok: false,
      error: { kind: 'conflict', message: /already running/ },
    });
    expect(await call('reconcile.cancelRun', { runId: 'r2' })).toEqual({ ok: true, value: { cancelled: false } });
    expect(await call('reconcile.cancelRun', { runId: 'r1' })).toEqual({ ok: true, value: { cancelled: true } });
    expect(await first).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(await call('reconcile.cancelRun', { runId: 'r1' })).toEqual({ ok: true, value: { cancelled: false } });
    const done = await call('reconcile.run', { runId: 'r3' });
    expect(done).toMatchObject({ ok: true, value: { collections: 60_000 } });
    const last = seen.filter((e) => e.event === 'reconcile.progress').at(-1)!.payload;
    expect(last).toEqual({ done: 60_000, total: 60_000 });
    // The worker wrote its results to the app's database file.
    expect(db.prepare('SELECT COUNT(*) FROM reconciliation').pluck().get()).toBe(60_000);
  });

  it('a full run stops when its window goes away (the request signal) or the app closes', async () => {
    const { db } = testDb();
    addCollections(db, 60_000);
    const { core, close } = fakeCore(db, () => Date.UTC(2026, 1, 1));
    const call = createDispatcher({ ...handlersOf(core) } as unknown as HandlerTable);
    const gone = new AbortController();
    const first = call('reconcile.run', { runId: 'w1' }, { signal: gone.signal });
    gone.abort();
    expect(await first).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    const second = call('reconcile.run', { runId: 'w2' });
    close();
    expect(await second).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
  });
});
