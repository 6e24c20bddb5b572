// reports.target / reports.export / reports.cancel over the real dispatcher and a real SQLite file:
// with the shell's save dialog its path is used (default name from the dates; closing it exports
// nothing); without one the file goes to <data folder>/exports under a plain name checked on field
// 'fileName' (nothing overwritten, the folder made on demand), and any path is refused; answers list each file with its size; progress carries the exportId; cancel stops an
// export and removes the partial file.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../main/ipc/dispatch.js';
import { createEventBus } from '../../main/app/event-bus.js';
import { pushToRenderer } from '../../main/ipc/push.js';
import { reportsHandlers } from '../../main/ipc/handlers/reports.js';
import { deskOperations } from '../../main/app/desk-operations.js';
import { deskQueries } from '../../main/app/desk-queries.js';
import { defaultSettings } from '../../main/settings/index.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import type { Core, SavePathChooser } from '../../main/app/core.js';
import type { HandlerTable } from '../../main/ipc/handlers/types.js';
import { tempDir } from '../support/tmp.js';

function setup(opts: { chooser?: SavePathChooser } = {}) {
  const dataDir = tempDir();
  const db = openDatabase(path.join(dataDir, 'merchant-desk.sqlite'));
  const events = createEventBus();
  const seen: { event: string; payload: unknown }[] = [];
  pushToRenderer(events, (event, payload) => seen.push({ event, payload }));
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
  const call = createDispatcher(reportsHandlers(deskOperations(core), deskQueries(core)) as unknown as HandlerTable);
  return { db, dataDir, call, seen, close: () => db.close() };
}

function addCollections(db: ReturnType<typeof openDatabase>, n: number, t0 = Date.UTC(2026, 0, 10)) {
  db.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
     INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, operator, redirect_url, status, status_changed_at)
     SELECT 'REF-' || printf('%08d', i), ? + i, 100 + i, 'UGX', 'Order, "quoted" ' || i, 'op', 'https://merchant-desk.invalid/return', 'PENDING', ? + i FROM seq`,
  ).run(n, t0, t0);
}

/** Cancel once the export is under way (cancel answers cancelled: false before it registered). */
async function cancelWhenRunning(call: ReturnType<typeof setup>['call'], exportId: string) {
  for (let i = 0; i < 400; i++) {
    const c = await call('reports.cancel', { exportId });
    if (c.ok && (c.value as { cancelled: boolean }).cancelled) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('reports over IPC, without a save dialog', () => {
  it('files go to the exports folder under a plain name (given, or from the dates); sizes in the answer; nothing overwritten', async () => {
    const { db, dataDir, call, seen, close } = setup();
    addCollections(db, 3);
    const exportsDir = path.join(dataDir, 'exports');
    expect(await call('reports.target', {})).toEqual({ ok: true, value: { canChoose: false, folder: exportsDir } });

    const base = { exportId: 'e1', kind: 'collections' };
    expect(await call('reports.export', { ...base, fileName: 'report.txt' })).toMatchObject({
      ok: false,
      error: { field: 'fileName', message: /end in \.csv/ },
    });
    expect(await call('reports.export', { ...base, from: 10, to: 5, fileName: 'r.csv' })).toMatchObject({
      ok: false,
      error: { field: 'to' },
    });
    expect(await call('reports.export', { exportId: 'b', kind: 'balances', fileName: 'b.csv' })).toMatchObject({
      ok: false,
      error: { field: 'from' },
    });
    expect(await call('reports.export', { exportId: 'b', kind: 'balances', from: 5, fileName: 'b.csv' })).toMatchObject(
      { ok: false, error: { field: 'to' } },
    );
    expect(await call('reports.export', { ...base, kind: 'payments', fileName: 'b.csv' })).toMatchObject({
      ok: false,
      error: { field: 'kind' },
    });

    const out = path.join(exportsDir, 'all.csv'); // the folder is made on demand
    const r = await call('reports.export', { ...base, fileName: 'all.csv', bom: true });
    expect(r).toMatchObject({
      ok: true,
      value: { status: 'done', rows: 3, files: [{ path: out, bytes: fs.statSync(out).size }] },
    });
    const text = fs.readFileSync(out, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text).toContain('"Order, ""quoted"" 2"');
    expect(
      seen.some((e) => e.event === 'reports.progress' && (e.payload as { exportId: string }).exportId === 'e1'),
    ).toBe(true);
    // A name the person gave is never overwritten.
    const before = fs.readFileSync(out);
    expect(await call('reports.export', { ...base, exportId: 'e2', fileName: 'all.csv' })).toMatchObject({
      ok: false,
      error: { field: 'fileName', message: /already exists/ },
    });
    expect(fs.readFileSync(out).equals(before)).toBe(true);
    // No name: one from the dates, numbered when taken.
    const d1 = await call('reports.export', { exportId: 'd1', kind: 'collections' });
    const d2 = await call('reports.export', { exportId: 'd2', kind: 'collections' });
    expect(d1).toMatchObject({ ok: true, value: { files: [{ path: path.join(exportsDir, 'collections.csv') }] } });
    expect(d2).toMatchObject({ ok: true, value: { files: [{ path: path.join(exportsDir, 'collections-2.csv') }] } });

    // The balance report writes two files; both must be free.
    fs.writeFileSync(path.join(exportsDir, 'bal-snapshots.csv'), 'keep me');
    expect(
      await call('reports.export', { exportId: 'b1', kind: 'balances', from: 0, to: Date.now(), fileName: 'bal.csv' }),
    ).toMatchObject({
      ok: false,
      error: { field: 'fileName', message: /bal-snapshots\.csv already exists/ },
    });
    expect(fs.readFileSync(path.join(exportsDir, 'bal-snapshots.csv'), 'utf8')).toBe('keep me');
    expect(fs.existsSync(path.join(exportsDir, 'bal.csv'))).toBe(false);
    // Both files, with their sizes, when free.
    const bal2 = path.join(exportsDir, 'bal2.csv');
    const b2 = await call('reports.export', {
      exportId: 'b2',
      kind: 'balances',
      from: 0,
      to: Date.now(),
      fileName: 'bal2.csv',
    });
    const snap = path.join(exportsDir, 'bal2-snapshots.csv');
    expect(b2).toMatchObject({
      ok: true,
      value: {
        status: 'done',
        files: [
          { path: bal2, bytes: fs.statSync(bal2).size },
          { path: snap, bytes: fs.statSync(snap).size },
        ],
      },
    });
    close();
  });

  it('an .xlsx workbook: its name ends in .xlsx, the balance report is one file, a byte-order mark is refused', async () => {
    const { db, dataDir, call, close } = setup();
    addCollections(db, 3);
    const exportsDir = path.join(dataDir, 'exports');
    const base = { exportId: 'x1', kind: 'collections', format: 'xlsx' };
    expect(await call('reports.export', { ...base, fileName: 'report.csv' })).toMatchObject({
      ok: false,
      error: { field: 'fileName', message: /end in \.xlsx/ },
    });
    expect(await call('reports.export', { ...base, fileName: 'report.xlsx', bom: true })).toMatchObject({
      ok: false,
      error: { field: 'bom' },
    });
    expect(await call('reports.export', { ...base, format: 'ods', fileName: 'report.ods' })).toMatchObject({
      ok: false,
      error: { field: 'format' },
    });
    const out = path.join(exportsDir, 'report.xlsx');
    expect(await call('reports.export', { ...base, fileName: 'report.xlsx' })).toMatchObject({
      ok: true,
      value: { status: 'done', rows: 3, files: [{ path: out, bytes: fs.statSync(out).size }] },
    });
    expect(fs.readFileSync(out).subarray(0, 2).toString()).toBe('PK'); // a ZIP package
    expect(await call('reports.export', { ...base, exportId: 'x2' })).toMatchObject({
      ok: true,
      value: { files: [{ path: path.join(exportsDir, 'collections.xlsx') }] },
    });
    // One workbook for the balance report: a CSV's "-snapshots" file beside it is no clash.
    fs.writeFileSync(path.join(exportsDir, 'bal-snapshots.csv'), 'keep me');
    const bal = path.join(exportsDir, 'bal.xlsx');
    expect(
      await call('reports.export', {
        ...base,
        exportId: 'b',
        kind: 'balances',
        from: 0,
        to: Date.now(),
        fileName: 'bal.xlsx',
      }),
    ).toMatchObject({ ok: true, value: { status: 'done', files: [{ path: bal }] } });
    expect(fs.readFileSync(path.join(exportsDir, 'bal-snapshots.csv'), 'utf8')).toBe('keep me');
    close();
  });

  it('refuses any path from the renderer with a field error, and writes nothing anywhere', async () => {
    const { db, dataDir, call, seen, close } = setup();
    addCollections(db, 3);
    const outside = tempDir();
    const attempts: [Record<string, unknown>, string][] = [
      [{ out: path.join(outside, 'x.csv') }, 'out'],
      [{ out: '/etc/passwd' }, 'out'],
      [{ path: path.join(outside, 'x.csv') }, 'path'],
      [{ fileName: '../../x.csv' }, 'fileName'],
      [{ fileName: path.join(outside, 'x.csv') }, 'fileName'],
      [{ fileName: '..\\x.csv' }, 'fileName'],
      [{ fileName: 'C:x.csv' }, 'fileName'],
      [{ fileName: '.hidden.csv' }, 'fileName'],
      [{ fileName: 'a\u0000.csv' }, 'fileName'],
    ];
    for (const [extra, field] of attempts) {
      const r = await call('reports.export', { exportId: 'p', kind: 'collections', ...extra });
      expect(r, JSON.stringify(extra)).toMatchObject({ ok: false, error: { kind: 'validation', field } });
    }
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'exports'))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, '..', 'x.csv'))).toBe(false);
    expect(seen.filter((e) => e.event === 'reports.progress')).toEqual([]);
    close();
  });

  it('cancel stops a running export and removes the partial file', async () => {
    const { db, dataDir, call, close } = setup();
    addCollections(db, 300_000);
    const out = path.join(dataDir, 'exports', 'big.csv');
    const running = call('reports.export', { exportId: 'big', kind: 'collections', fileName: 'big.csv' });
    expect(await call('reports.export', { exportId: 'big', kind: 'collections', fileName: 'other.csv' })).toMatchObject(
      {
        ok: false,
        error: { field: 'exportId', message: /already running/ },
      },
    );
    await cancelWhenRunning(call, 'big');
    expect(await running).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(path.dirname(out))).toEqual([]);
    expect(await call('reports.cancel', { exportId: 'big' })).toEqual({ ok: true, value: { cancelled: false } });
    close();
  });
});

describe('reports over IPC, with the shell save dialog', () => {
  it('uses the chosen path (no typed one needed) with a default name from the dates; closing the dialog exports nothing', async () => {
    const dir = tempDir();
    const asked: string[] = [];
    let answer: string | null = path.join(dir, 'chosen.csv');
    const { db, call, seen, close } = setup({ chooser: async (o) => (asked.push(o.defaultName), answer) });
    addCollections(db, 2);
    expect(await call('reports.target', {})).toMatchObject({ ok: true, value: { canChoose: true } });
    const r = await call('reports.export', {
      exportId: 'x',
      kind: 'collections',
      from: Date.UTC(2026, 0, 1),
      to: Date.UTC(2026, 1, 1),
      bom: true,
    });
    expect(r).toMatchObject({
      ok: true,
      value: { status: 'done', rows: 2, files: [{ path: answer, bytes: fs.statSync(answer!).size }] },
    });
    expect(fs.readFileSync(answer!, 'utf8').startsWith('\uFEFF')).toBe(true);
    const progress = seen
      .filter((s) => s.event === 'reports.progress')
      .map((s) => s.payload as { exportId: string; done: number; total: number });
    expect(progress.at(-1)).toMatchObject({ exportId: 'x', done: 2, total: 2 });

    answer = null;
    expect(await call('reports.export', { exportId: 'y', kind: 'collections' })).toEqual({
      ok: true,
      value: { status: 'no_file_chosen' },
    });
    expect(
      await call('reports.export', {
        exportId: 'z',
        kind: 'balances',
        from: Date.UTC(2026, 0, 1),
        to: Date.UTC(2026, 0, 8),
      }),
    ).toEqual({
      ok: true,
      value: { status: 'no_file_chosen' },
    });
    expect(asked).toEqual([
      'collections-2026-01-01-to-2026-01-31.csv',
      'collections.csv',
      'balances-2026-01-01-to-2026-01-07.csv',
    ]);
    // A bad range is refused before the dialog opens.
    expect(await call('reports.export', { exportId: 'w', kind: 'balances', from: 10, to: 5 })).toMatchObject({
      ok: false,
      error: { field: 'to' },
    });
    expect(asked).toHaveLength(3);
    close();
  });

  it('an .xlsx workbook: the dialog offers one, and the chosen name ends in .xlsx', async () => {
    const dir = tempDir();
    const asked: { defaultName: string; filters: unknown }[] = [];
    const { db, call, close } = setup({
      chooser: async (o) => (asked.push({ defaultName: o.defaultName, filters: o.filters }), path.join(dir, 'chosen')),
    });
    addCollections(db, 2);
    const r = await call('reports.export', { exportId: 'x', kind: 'collections', format: 'xlsx' });
    const file = path.join(dir, 'chosen.xlsx');
    expect(r).toMatchObject({ ok: true, value: { status: 'done', rows: 2, files: [{ path: file }] } });
    expect(asked).toEqual([
      { defaultName: 'collections.xlsx', filters: [{ name: 'Excel workbook', extensions: ['xlsx'] }] },
    ]);
    expect(fs.readdirSync(dir)).toEqual(['chosen.xlsx']);
    close();
  });

  it('cancel while writing to the chosen file removes it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cancelled.csv');
    const { db, call, close } = setup({ chooser: async () => file });
    addCollections(db, 300_000);
    const running = call('reports.export', { exportId: 'c', kind: 'collections' });
    await cancelWhenRunning(call, 'c');
    expect(await running).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(fs.readdirSync(dir)).toEqual([]);
    close();
  });
});
