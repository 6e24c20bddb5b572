import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../main/ipc/dispatch.js';
import { createEmitter } from '../../main/app/events.js';
import { reconcileHandlers } from '../../main/ipc/handlers/reconcile.js';
import { reportsHandlers } from '../../main/ipc/handlers/reports.js';
import { defaultSettings } from '../../main/settings/index.js';
import type { Core } from '../../main/app/core.js';
import type { HandlerTable } from '../../main/ipc/handlers/types.js';
import { History, testDb } from './fixtures.js';

function fakeCore(db: Core['db'], now: () => number) {
  const events = createEmitter();
  const seen: { event: string; payload: unknown }[] = [];
  events.subscribe((event, payload) => seen.push({ event, payload }));
  const settings = { ...defaultSettings(), operatorName: 'Ann Back-Office' };
  const closers: (() => void)[] = [];
  const core = { db, clock: { now }, settings: () => settings, events, onClose: (fn: () => void) => closers.push(fn) } as unknown as Core;
  return { core, seen };
}

describe('reconcile and reports over IPC', () => {
  it('lists, details and resolves exceptions; a missing note is a validation error naming the field', async () => {
    const { db } = testDb();
    const h = new History(db);
    const id = h.collection({ amountMinor: 5000, currency: 'KES' });
    h.accepted(id);
    h.callback(id, 'COMPLETED', { amountMinor: 4000 });
    const { core } = fakeCore(db, () => h.t);
    const call = createDispatcher({ ...reconcileHandlers(core) } as unknown as HandlerTable);

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
    expect(audit).toMatchObject({ ok: true, value: { total: 1, rows: [{ actor: 'Ann Back-Office', note: 'Partial capture confirmed with the bank' }] } });
    const again = await call('reconcile.resolve', { collectionId: id, note: 'second time' });
    expect(again).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    const run = await call('reconcile.run', {});
    expect(run).toMatchObject({ ok: true, value: { collections: 1, exceptions: 0 } });
  });

  it('exports to the path the save dialog chose, with progress events; cancel and no-file-chosen', async () => {
    const { db, dir } = testDb();
    const ins = db.prepare(
      `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, operator, redirect_url, status, status_changed_at)
       VALUES (?, ?, 100, 'UGX', 'Order ten chars', 'op', 'https://merchant-desk.invalid/return', 'PENDING', ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < 100_000; i++) ins.run(`R-${i}`, 1_700_000_000_000 + i, 1_700_000_000_000 + i);
    })();
    const { core, seen } = fakeCore(db, () => 1_800_000_000_000);
    let next: string | null = path.join(dir, 'out.csv');
    const call = createDispatcher({ ...reportsHandlers(core, { chooseSavePath: async () => next }) } as unknown as HandlerTable);

    const done = await call('reports.exportCollections', { exportId: 'e1', bom: true });
    expect(done).toMatchObject({ ok: true, value: { status: 'done', rows: 100_000, files: [path.join(dir, 'out.csv')] } });
    const progress = seen.filter((s) => s.event === 'reports.progress').map((s) => s.payload as { exportId: string; done: number; total: number });
    expect(progress.at(-1)).toMatchObject({ exportId: 'e1', done: 100_000, total: 100_000 });

    next = path.join(dir, 'cancelled.csv');
    seen.length = 0;
    const pending = call('reports.exportCollections', { exportId: 'e2' });
    const stop = setInterval(() => {
      if (seen.some((s) => (s.payload as { phase: string }).phase === 'writing')) {
        clearInterval(stop);
        void call('reports.cancel', { exportId: 'e2' });
      }
    }, 1);
    expect(await pending).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    clearInterval(stop);
    expect(fs.existsSync(next) || fs.existsSync(next + '.part')).toBe(false);

    next = null;
    expect(await call('reports.exportBalances', { exportId: 'e3', from: 0, to: 10 })).toMatchObject({ ok: true, value: { status: 'no_file_chosen' } });
    expect(await call('reports.exportBalances', { exportId: 'e4', from: 10, to: 5 })).toMatchObject({ ok: false, error: { field: 'to' } });
  });
});
