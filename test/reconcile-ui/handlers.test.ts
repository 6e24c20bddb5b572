// The Reconciliation/Reports screens' extra channels over the real dispatcher and a real SQLite file:
// a typed export path is checked (named field 'out', nothing overwritten), files come back with their
// sizes, a shell save dialog is used when there is one, and a full run can be cancelled.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../main/ipc/dispatch.js';
import { createEmitter } from '../../main/app/events.js';
import { reconcileUiHandlers } from '../../main/ipc/handlers/reconcile-ui.js';
import { defaultSettings } from '../../main/settings/index.js';
import { openDatabase } from '../../main/store/db.js';
import type { Core } from '../../main/app/core.js';
import type { HandlerTable } from '../../main/ipc/handlers/types.js';
import { tempDir } from '../support/tmp.js';

function setup(opts: { chooser?: (o: { defaultName: string }) => Promise<string | null> } = {}) {
  const dataDir = tempDir();
  const db = openDatabase(path.join(dataDir, 'merchant-desk.sqlite'));
  const events = createEmitter();
  const seen: { event: string; payload: unknown }[] = [];
  events.subscribe((event, payload) => seen.push({ event, payload }));
  const settings = defaultSettings();
  const closers: (() => void)[] = [];
  const core = {
    dataDir,
    db,
    clock: { now: () => Date.now() },
    settings: () => settings,
    events,
    onClose: (fn: () => void) => closers.push(fn),
    chooseSavePath: opts.chooser ?? null,
  } as unknown as Core;
  const call = createDispatcher(reconcileUiHandlers(core) as unknown as HandlerTable);
  return { db, dataDir, call, seen, close: () => db.close() };
}

function addCollections(db: ReturnType<typeof openDatabase>, n: number, t0 = Date.UTC(2026, 0, 10)) {
  db.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
     INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, operator, redirect_url, status, status_changed_at)
     SELECT 'REF-' || printf('%08d', i), ? + i, 100 + i, 'UGX', 'Order, "quoted" ' || i, 'op', 'https://merchant-desk.invalid/return', 'PENDING', ? + i FROM seq`,
  ).run(n, t0, t0);
}

describe('reportsUi over IPC', () => {
  it('without a save dialog: the default folder, a typed path checked on field out, sizes in the answer', async () => {
    const { db, dataDir, call, seen, close } = setup();
    addCollections(db, 3);
    const exportsDir = path.join(dataDir, 'exports');
    expect(await call('reportsUi.target', {})).toEqual({ ok: true, value: { canChoose: false, defaultDir: exportsDir, sep: path.sep } });

    const base = { exportId: 'e1', kind: 'collections' };
    expect(await call('reportsUi.export', base)).toMatchObject({ ok: false, error: { kind: 'validation', field: 'out', message: 'enter where to save the file' } });
    expect(await call('reportsUi.export', { ...base, out: 'report.csv' })).toMatchObject({ ok: false, error: { field: 'out', message: /give a full path/ } });
    expect(await call('reportsUi.export', { ...base, out: path.join(exportsDir, 'report.txt') })).toMatchObject({ ok: false, error: { field: 'out', message: /end in \.csv/ } });
    expect(await call('reportsUi.export', { ...base, out: path.join(dataDir, 'nope', 'r.csv') })).toMatchObject({ ok: false, error: { field: 'out', message: /does not exist/ } });
    expect(await call('reportsUi.export', { ...base, from: 10, to: 5, out: path.join(exportsDir, 'r.csv') })).toMatchObject({ ok: false, error: { field: 'to' } });
    expect(await call('reportsUi.export', { exportId: 'b', kind: 'balances', out: path.join(exportsDir, 'b.csv') })).toMatchObject({ ok: false, error: { field: 'from' } });

    const out = path.join(exportsDir, 'all.csv'); // the default folder is made on demand
    const r = await call('reportsUi.export', { ...base, out, bom: true });
    expect(r).toMatchObject({ ok: true, value: { status: 'done', rows: 3, files: [{ path: out, bytes: fs.statSync(out).size }] } });
    const text = fs.readFileSync(out, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text).toContain('"Order, ""quoted"" 2"');
    expect(seen.some((e) => e.event === 'reports.progress' && (e.payload as { exportId: string }).exportId === 'e1')).toBe(true);
    // Never overwritten.
    const before = fs.readFileSync(out);
    expect(await call('reportsUi.export', { ...base, exportId: 'e2', out })).toMatchObject({ ok: false, error: { field: 'out', message: /already exists/ } });
    expect(fs.readFileSync(out).equals(before)).toBe(true);

    // The balance report writes two files; both must be free.
    const bal = path.join(exportsDir, 'bal.csv');
    fs.writeFileSync(path.join(exportsDir, 'bal-snapshots.csv'), 'keep me');
    expect(await call('reportsUi.export', { exportId: 'b1', kind: 'balances', from: 0, to: Date.now(), out: bal })).toMatchObject({
      ok: false,
      error: { field: 'out', message: /bal-snapshots\.csv already exists/ },
    });
    expect(fs.readFileSync(path.join(exportsDir, 'bal-snapshots.csv'), 'utf8')).toBe('keep me');
    expect(fs.existsSync(bal)).toBe(false);
    close();
  });

  it('with a save dialog: its path is used (a typed one is not needed); closing it exports nothing', async () => {
    const dir = tempDir();
    const asked: string[] = [];
    let answer: string | null = path.join(dir, 'chosen.csv');
    const { db, call, close } = setup({ chooser: async (o) => (asked.push(o.defaultName), answer) });
    addCollections(db, 2);
    expect(await call('reportsUi.target', {})).toMatchObject({ ok: true, value: { canChoose: true } });
    const r = await call('reportsUi.export', { exportId: 'x', kind: 'collections', from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 1, 1) });
    expect(r).toMatchObject({ ok: true, value: { status: 'done', rows: 2, files: [{ path: answer }] } });
    expect(asked).toEqual(['collections-2026-01-01-to-2026-01-31.csv']);
    answer = null;
    expect(await call('reportsUi.export', { exportId: 'y', kind: 'collections' })).toEqual({ ok: true, value: { status: 'no_file_chosen' } });
    close();
  });

  it('cancel stops a running export and removes the partial file', async () => {
    const { db, dataDir, call, close } = setup();
    addCollections(db, 300_000);
    const out = path.join(dataDir, 'exports', 'big.csv');
    const running = call('reportsUi.export', { exportId: 'big', kind: 'collections', out });
    // Cancel once the export is under way (it answers cancelled: false before it registered).
    for (let i = 0; i < 200; i++) {
      const c = await call('reportsUi.cancel', { exportId: 'big' });
      if (c.ok && (c.value as { cancelled: boolean }).cancelled) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await running).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(path.dirname(out))).toEqual([]);
    close();
  });
});

describe('reconcileUi over IPC', () => {
  it('a full run reports progress and can be cancelled; one run at a time; a later run completes', async () => {
    const { db, call, seen, close } = setup();
    addCollections(db, 60_000);
    const first = call('reconcileUi.run', { runId: 'r1' });
    expect(await call('reconcileUi.run', { runId: 'r2' })).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    expect(await call('reconcileUi.cancelRun', { runId: 'r1' })).toEqual({ ok: true, value: { cancelled: true } });
    expect(await first).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(await call('reconcileUi.cancelRun', { runId: 'r1' })).toEqual({ ok: true, value: { cancelled: false } });
    const done = await call('reconcileUi.run', { runId: 'r3' });
    expect(done).toMatchObject({ ok: true, value: { collections: 60_000 } });
    const last = seen.filter((e) => e.event === 'reconcile.progress').at(-1)!.payload;
    expect(last).toEqual({ done: 60_000, total: 60_000 });
    close();
  });
});
