// Exporting a report, in one place (issue 28): the balance report or the collections report for a date
// range, as CSV or as an .xlsx workbook (issue 42), written on a worker thread (reports/). Reports (the IPC handlers in ipc/handlers/reports.ts) and
// `merchant-desk export` (cli/commands/export.ts) are thin adapters over it: each says where the file goes
// (the save dialog, the exports folder, --out) and how progress is shown.
//
// On a team desk an export reads the desk's own copy of the team record: every role may export, the
// database decides nothing and nothing is written to it. What the export shows is what this desk has
// applied, up to its last pull (the status bar says when that was).
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import path from 'node:path';
import {
  checkExportTarget,
  runExport,
  ReportError,
  type ExportFormat,
  type ExportJob,
  type ExportProgress,
  type ExportResult,
} from '../reports/index.js';

export type { ExportFormat, ExportJob, ExportProgress, ExportResult };

/** The format a file's name asks for: a workbook for .xlsx, CSV for any other name (as before there was a choice). */
export function formatOfFile(file: string): ExportFormat {
  return path.extname(file).toLowerCase() === '.xlsx' ? 'xlsx' : 'csv';
}

/** The report asked for, as a person gives it: the kind and the range (the balance report needs both ends). */
export interface ExportRequest {
  kind: 'balances' | 'collections';
  /** Start of the range, inclusive (ms). */
  from?: number | undefined;
  /** End of the range, exclusive (ms). */
  to?: number | undefined;
}

/** The job for a request, or why there is none (the field named as the request names it). */
export function exportJob(r: ExportRequest): ExportJob {
  if (r.from !== undefined && r.to !== undefined && r.to <= r.from)
    throw new ReportError('validation', 'must be after the start of the range', 'to');
  if (r.kind === 'balances') {
    if (r.from === undefined) throw new ReportError('validation', 'the balance report needs a start date', 'from');
    if (r.to === undefined) throw new ReportError('validation', 'the balance report needs an end date', 'to');
    return { kind: 'balances', from: r.from, to: r.to };
  }
  return {
    kind: 'collections',
    ...(r.from !== undefined ? { from: r.from } : {}),
    ...(r.to !== undefined ? { to: r.to } : {}),
  };
}

export interface ExportDeps {
  db: Db;
  clock: Clock;
  /** The stale-pending setting the collections report's reconciliation column uses. */
  stalePendingAfterMs: () => number;
}

/** Throws (kind validation, field 'out') when no report can be written at `out`: checked again as it is written. */
export function checkExportOut(out: string): void {
  checkExportTarget(out, 'out');
}

/** Writes the report to `out` (the file appears only when complete); cancelled by `signal`. */
export function exportReport(
  deps: ExportDeps,
  job: ExportJob,
  out: string,
  o: { format?: ExportFormat; bom?: boolean; signal?: AbortSignal; onProgress?: (p: ExportProgress) => void } = {},
): Promise<ExportResult> {
  return runExport({
    dbFile: deps.db.name,
    job,
    out,
    format: o.format ?? 'csv',
    bom: o.bom ?? false,
    now: deps.clock.now(),
    stalePendingAfterMs: deps.stalePendingAfterMs(),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  });
}

/**
 * The exports running at a desk, each under the id its screen gave it: one run per id, cancelled by id,
 * all stopped when the desk closes.
 */
export interface RunningExports {
  /** Runs `fn` as export `id`; refused while another export with this id runs. */
  run<T>(id: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Throws when an export with this id is running (checked before a save dialog opens). */
  checkFree(id: string): void;
  cancel(id: string): boolean;
  cancelAll(): void;
}

export function runningExports(): RunningExports {
  const running = new Map<string, AbortController>();
  const checkFree = (id: string) => {
    if (running.has(id)) throw new ReportError('validation', `an export with id ${id} is already running`, 'exportId');
  };
  return {
    checkFree,
    async run(id, fn) {
      checkFree(id);
      const ac = new AbortController();
      running.set(id, ac);
      try {
        return await fn(ac.signal);
      } finally {
        running.delete(id);
      }
    },
    cancel(id) {
      const ac = running.get(id);
      ac?.abort();
      return ac !== undefined;
    },
    cancelAll() {
      for (const ac of running.values()) ac.abort();
    },
  };
}
