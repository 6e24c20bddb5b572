// Handlers of contract/reports.ts: exports through the shell's save dialog (core.chooseSavePath, set by
// the Electron shell) or, without one, to a typed path checked on field 'out'; each answer lists the
// written files with their sizes. One export per exportId; cancel by id; all stop when the core closes.
import fs from 'node:fs';
import path from 'node:path';
import type { Core, SavePathChooser } from '../../app/core.js';
import type { ExportOutcome, reportsChannels } from '../contract/reports.js';
import type { HandlersFor } from './types.js';
import { runExport, snapshotsPathFor, ReportError, type ExportJob } from '../../reports/index.js';

export type { SavePathChooser };

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Where typed paths go by default: <data folder>/exports (made on first use). */
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

function defaultName(job: ExportJob): string {
  if (job.kind === 'balances') return `balances-${day(job.from)}-to-${day(job.to - 1)}.csv`;
  return job.from !== undefined && job.to !== undefined ? `collections-${day(job.from)}-to-${day(job.to - 1)}.csv` : 'collections.csv';
}

export const reportsHandlers = (core: Core): HandlersFor<typeof reportsChannels> => {
  const running = new Map<string, AbortController>();
  core.onClose(() => {
    for (const ac of running.values()) ac.abort();
  });
  return {
    'reports.target': () => ({ canChoose: core.chooseSavePath !== null && core.chooseSavePath !== undefined, defaultDir: exportsDir(core), sep: path.sep }),
    'reports.export': async ({ exportId, kind, from, to, bom, out }): Promise<ExportOutcome> => {
      if (running.has(exportId)) throw new ReportError('validation', `an export with id ${exportId} is already running`, 'exportId');
      // The contract refuses a balance report without both dates.
      const job: ExportJob =
        kind === 'balances'
          ? { kind, from: from!, to: to! }
          : { kind, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
      const choose = core.chooseSavePath;
      let file: string;
      if (choose) {
        const chosen = await choose({ title: 'Save report as', defaultName: defaultName(job), filters: [{ name: 'CSV', extensions: ['csv'] }] });
        if (!chosen) return { status: 'no_file_chosen' };
        file = chosen;
      } else {
        if (!out) throw new ReportError('validation', 'enter where to save the file', 'out');
        file = checkTypedPath(out, job, exportsDir(core));
      }
      // Checked again: a second request with this id may have started while the dialog was open.
      if (running.has(exportId)) throw new ReportError('validation', `an export with id ${exportId} is already running`, 'exportId');
      const ac = new AbortController();
      running.set(exportId, ac);
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
        running.delete(exportId);
      }
    },
    'reports.cancel': ({ exportId }) => {
      const ac = running.get(exportId);
      ac?.abort();
      return { cancelled: ac !== undefined };
    },
  };
};
