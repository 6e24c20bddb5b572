// Handlers of reconcile-ui.ts: a cancellable full reconciliation and exports to a typed path (shells
// without a save dialog) or through the shell's save dialog, answering with each file's size.
import fs from 'node:fs';
import path from 'node:path';
import type { Core } from '../../app/core.js';
import type { ExportUiOutcome, reconcileUiChannels } from '../contract/reconcile-ui.js';
import type { HandlersFor } from './types.js';
import { reconcileAll, ReconcileError } from '../../reconcile/index.js';
import { runExport, snapshotsPathFor, ReportError, type ExportJob } from '../../reports/index.js';
import type { SavePathChooser } from './reports.js';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function exportsDir(core: Pick<Core, 'dataDir'>): string {
  return path.join(core.dataDir, 'exports');
}

/** A typed destination: absolute, .csv, in an existing folder (the default exports folder is made), nothing overwritten. */
export function checkTypedPath(out: string, job: ExportJob, defaultDir: string): string {
  if (!path.isAbsolute(out)) throw new ReportError('validation', `give a full path, e.g. ${path.join(defaultDir, 'report.csv')}`, 'out');
  const file = path.resolve(out);
  if (path.extname(file).toLowerCase() !== '.csv') throw new ReportError('validation', 'the file name must end in .csv', 'out');
  const dir = path.dirname(file);
  if (dir === path.resolve(defaultDir)) fs.mkdirSync(dir, { recursive: true });
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    st = undefined;
  }
  if (!st?.isDirectory()) throw new ReportError('validation', `the folder ${dir} does not exist`, 'out');
  const targets = job.kind === 'balances' ? [file, snapshotsPathFor(file)] : [file];
  for (const t of targets) {
    if (fs.existsSync(t)) throw new ReportError('validation', `${t} already exists; choose another file name`, 'out');
  }
  return file;
}

export const reconcileUiHandlers = (core: Core): HandlersFor<typeof reconcileUiChannels> => {
  const runs = new Map<string, AbortController>();
  const exports = new Map<string, AbortController>();
  const chooser = (): SavePathChooser | null => core.chooseSavePath ?? null;
  core.onClose(() => {
    for (const ac of [...runs.values(), ...exports.values()]) ac.abort();
  });
  return {
    'reconcileUi.run': async ({ runId }) => {
      if (runs.size > 0) throw new ReconcileError('conflict', 'a full reconciliation is already running; wait for it or cancel it');
      const ac = new AbortController();
      runs.set(runId, ac);
      try {
        return await reconcileAll(core.db, {
          now: core.clock.now(),
          stalePendingAfterMs: core.settings().stalePendingAfterMs,
          signal: ac.signal,
          onProgress: (p) => core.events.emit('reconcile.progress', p),
        });
      } finally {
        runs.delete(runId);
      }
    },
    'reconcileUi.cancelRun': ({ runId }) => {
      const ac = runs.get(runId);
      ac?.abort();
      return { cancelled: ac !== undefined };
    },
    'reportsUi.target': () => ({ canChoose: chooser() !== null, defaultDir: exportsDir(core), sep: path.sep }),
    'reportsUi.export': async ({ exportId, kind, from, to, bom, out }): Promise<ExportUiOutcome> => {
      if (exports.has(exportId)) throw new ReportError('validation', `an export with id ${exportId} is already running`, 'exportId');
      const job: ExportJob =
        kind === 'balances'
          ? { kind, from: from!, to: to! }
          : { kind, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
      const choose = chooser();
      let file: string;
      if (choose) {
        const defaultName =
          kind === 'balances'
            ? `balances-${day(from!)}-to-${day(to! - 1)}.csv`
            : from !== undefined && to !== undefined
              ? `collections-${day(from)}-to-${day(to - 1)}.csv`
              : 'collections.csv';
        const chosen = await choose({ title: 'Save report as', defaultName, filters: [{ name: 'CSV', extensions: ['csv'] }] });
        if (!chosen) return { status: 'no_file_chosen' };
        file = chosen;
      } else {
        if (!out) throw new ReportError('validation', 'enter where to save the file', 'out');
        file = checkTypedPath(out, job, exportsDir(core));
      }
      const ac = new AbortController();
      exports.set(exportId, ac);
      try {
        const r = await runExport({
          dbFile: core.db.name,
          job,
          out: file,
          bom: bom ?? false,
          now: core.clock.now(),
          stalePendingAfterMs: core.settings().stalePendingAfterMs,
          signal: ac.signal,
          onProgress: (p) => core.events.emit('reports.progress', { exportId, ...p }),
        });
        return { status: 'done', rows: r.rows, files: r.files.map((f) => ({ path: f, bytes: fs.statSync(f).size })) };
      } finally {
        exports.delete(exportId);
      }
    },
    'reportsUi.cancel': ({ exportId }) => {
      const ac = exports.get(exportId);
      ac?.abort();
      return { cancelled: ac !== undefined };
    },
  };
};
