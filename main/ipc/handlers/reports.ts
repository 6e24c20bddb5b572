// Handlers of contract/reports.ts, adapters over the export (operations/export.ts, bound to the desk in
// app/desk-operations.ts): through the shell's save dialog (the Electron shell's) or, without one, into
// <data folder>/exports under a plain file name (the renderer's, checked on field 'fileName', or one made
// from the dates); each answer lists the written files with their sizes. One export per exportId; cancel
// by id; all stop when the desk closes.
import fs from 'node:fs';
import path from 'node:path';
import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
import type { ExportOutcome, reportsChannels } from '../contract/reports.js';
import type { HandlersFor } from './types.js';
import { snapshotsPathFor, ReportError, type ExportFormat, type ExportJob } from '../../reports/index.js';
import { exportJob } from '../../operations/export.js';
import { isPlainFileName } from '../contract/file-name.js';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const taken = (file: string) => fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined; // a dangling link counts

/**
 * The file in `folder` for a plain `name` (the contract checked it; checked again here, since this is
 * what keeps writes inside the folder). A name the person gave is never overwritten (field 'fileName');
 * a generated one gets "-2", "-3"... when taken.
 */
function exportFileIn(folder: string, name: string, job: ExportJob, format: ExportFormat, given: boolean): string {
  const ext = `.${format}`;
  if (!isPlainFileName(name) || path.extname(name).toLowerCase() !== ext) {
    throw new ReportError('validation', `must be a plain file name ending in ${ext}`, 'fileName');
  }
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const base = name.slice(0, -ext.length);
  for (let n = 1; n < 1000; n++) {
    const file = path.join(folder, n === 1 ? name : `${base}-${n}${ext}`);
    if (path.dirname(file) !== path.resolve(folder))
      throw new ReportError('validation', `must be a plain file name ending in ${ext}`, 'fileName');
    // The balance report as CSV writes a second file beside the first.
    const clash = (job.kind === 'balances' && format === 'csv' ? [file, snapshotsPathFor(file)] : [file]).find(taken);
    if (!clash) return file;
    if (given)
      throw new ReportError(
        'validation',
        `${path.basename(clash)} already exists in ${folder}; choose another file name`,
        'fileName',
      );
  }
  throw new ReportError(
    'validation',
    `too many files named ${base}-N${ext} in ${folder}; choose a file name`,
    'fileName',
  );
}

function defaultName(job: ExportJob, format: ExportFormat): string {
  if (job.kind === 'balances') return `balances-${day(job.from)}-to-${day(job.to - 1)}.${format}`;
  return job.from !== undefined && job.to !== undefined
    ? `collections-${day(job.from)}-to-${day(job.to - 1)}.${format}`
    : `collections.${format}`;
}

const FILTERS: Record<ExportFormat, { name: string; extensions: string[] }> = {
  csv: { name: 'CSV', extensions: ['csv'] },
  xlsx: { name: 'Excel workbook', extensions: ['xlsx'] },
};

/** What these handlers call on the desk. */
export type ReportsOperations = Pick<Operations, 'cancelExport' | 'checkExportFree' | 'exportReport' | 'saveDialog'>;
export type ReportsQueries = Pick<Queries, 'exportsFolder'>;

export const reportsHandlers = (ops: ReportsOperations, q: ReportsQueries): HandlersFor<typeof reportsChannels> => ({
  'reports.target': () => ({ canChoose: Boolean(ops.saveDialog()), folder: q.exportsFolder() }),
  'reports.export': async ({ exportId, kind, from, to, format = 'csv', bom, fileName }): Promise<ExportOutcome> => {
    ops.checkExportFree(exportId);
    const job = exportJob({ kind, from, to });
    const choose = ops.saveDialog();
    let file: string;
    if (choose) {
      const chosen = await choose({
        title: 'Save report as',
        defaultName: defaultName(job, format),
        filters: [FILTERS[format]],
      });
      if (!chosen) return { status: 'no_file_chosen' };
      // A workbook's name ends in .xlsx, whatever was typed in the dialog (a spreadsheet opens it by that).
      file = format === 'xlsx' && path.extname(chosen).toLowerCase() !== '.xlsx' ? chosen + '.xlsx' : chosen;
    } else {
      file = exportFileIn(q.exportsFolder(), fileName ?? defaultName(job, format), job, format, fileName !== undefined);
    }
    const r = await ops.exportReport(exportId, job, file, { format, bom: bom ?? false });
    return { status: 'done', rows: r.rows, files: r.files.map((f) => ({ path: f, bytes: fs.statSync(f).size })) };
  },
  'reports.cancel': ({ exportId }) => ({ cancelled: ops.cancelExport(exportId) }),
});
