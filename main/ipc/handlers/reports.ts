import type { Core } from '../../app/core.js';
import type { ExportOutcome, reportsChannels } from '../contract/reports.js';
import type { HandlersFor } from './types.js';
import { runExport, ReportError, type ExportJob } from '../../reports/index.js';

/** The shell's save dialog: resolves to the chosen path, or null when the user cancels. */
import type { SavePathChooser } from '../../app/core.js';
export type { SavePathChooser };

export interface ReportsDeps {
  /** Defaults to `core.chooseSavePath`, which the running shell sets (like core.paymentWindow). */
  chooseSavePath?: SavePathChooser;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export const reportsHandlers = (core: Core, deps: ReportsDeps = {}): HandlersFor<typeof reportsChannels> => {
  const running = new Map<string, AbortController>();
  const chooser = (): SavePathChooser => {
    const c = deps.chooseSavePath ?? core.chooseSavePath;
    if (!c) throw new ReportError('validation', 'this window cannot show a save dialog; use "merchant-desk export" on the command line');
    return c;
  };
  const start = async (exportId: string, job: ExportJob, defaultName: string, bom: boolean | undefined): Promise<ExportOutcome> => {
    if (running.has(exportId)) throw new ReportError('validation', `an export with id ${exportId} is already running`, 'exportId');
    const out = await chooser()({ title: 'Save report as', defaultName, filters: [{ name: 'CSV', extensions: ['csv'] }] });
    if (!out) return { status: 'no_file_chosen' };
    const ac = new AbortController();
    running.set(exportId, ac);
    try {
      const r = await runExport({
        dbFile: core.db.name,
        job,
        out,
        bom: bom ?? false,
        now: core.clock.now(),
        stalePendingAfterMs: core.settings().stalePendingAfterMs,
        signal: ac.signal,
        onProgress: (p) => core.events.emit('reports.progress', { exportId, ...p }),
      });
      return { status: 'done', files: r.files, rows: r.rows };
    } finally {
      running.delete(exportId);
    }
  };
  core.onClose(() => {
    for (const ac of running.values()) ac.abort();
  });
  return {
    'reports.exportBalances': ({ exportId, from, to, bom }) =>
      start(exportId, { kind: 'balances', from, to }, `balances-${day(from)}-to-${day(to - 1)}.csv`, bom),
    'reports.exportCollections': ({ exportId, from, to, bom }) =>
      start(
        exportId,
        { kind: 'collections', ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) },
        from !== undefined && to !== undefined ? `collections-${day(from)}-to-${day(to - 1)}.csv` : 'collections.csv',
        bom,
      ),
    'reports.cancel': ({ exportId }) => {
      const ac = running.get(exportId);
      ac?.abort();
      return { cancelled: ac !== undefined };
    },
  };
};
