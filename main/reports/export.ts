// Runs a report export on a worker_thread: progress messages, cancel (AbortSignal -> the worker is
// terminated and the partial FILE.part removed), and FILE appears only when complete (rename).
// The worker entry is export-worker.js next to this file in dist; under vitest/tsx (TypeScript source)
// the .ts entry is loaded through tsx's ESM loader registered inside the worker.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TimeZoneOption } from './csv.js';
import { ReportError } from './errors.js';
import { checkRange } from './dates.js';
import { DEFAULT_STALE_PENDING_AFTER_MS } from '../reconcile/classify.js';

export type ExportJob = { kind: 'collections'; from?: number; to?: number } | { kind: 'balances'; from: number; to: number };

export interface ExportProgress {
  phase: 'starting' | 'reconciling' | 'writing';
  done: number;
  total: number;
}

export interface ExportOptions {
  /** The SQLite file (db.name of an open handle). */
  dbFile: string;
  job: ExportJob;
  /** Destination CSV. The balance report also writes `snapshotsPathFor(out)`. */
  out: string;
  bom?: boolean;
  tz?: TimeZoneOption;
  now?: number;
  stalePendingAfterMs?: number;
  onProgress?: (p: ExportProgress) => void;
  signal?: AbortSignal;
}

export interface ExportResult {
  files: string[];
  rows: number;
}

/** What the worker receives (workerData). */
export interface WorkerJob {
  kind: 'collections' | 'balances';
  dbFile: string;
  out: string;
  snapshotsOut?: string;
  from?: number;
  to?: number;
  bom: boolean;
  tz?: TimeZoneOption;
  now: number;
  stalePendingAfterMs: number;
}

/** "report.csv" -> "report-snapshots.csv": the balance report's second file. */
export function snapshotsPathFor(out: string): string {
  const ext = path.extname(out);
  return ext ? out.slice(0, -ext.length) + '-snapshots' + ext : out + '-snapshots.csv';
}

function startWorker(data: WorkerJob): Worker {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const require = createRequire(here);
    const tsxApi = pathToFileURL(path.join(path.dirname(require.resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
    const entry = new URL('./export-worker.ts', here).href;
    const code = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
    return new Worker(code, { eval: true, workerData: data });
  }
  return new Worker(new URL('./export-worker.js', here), { workerData: data });
}

function checkOut(out: string, field: string): string {
  if (!out || typeof out !== 'string') throw new ReportError('validation', `${field}: a file path is required`, field);
  const abs = path.resolve(out);
  const dir = path.dirname(abs);
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw new ReportError('validation', `${field}: the folder ${dir} does not exist`, field);
  }
  if (!st.isDirectory()) throw new ReportError('validation', `${field}: ${dir} is not a folder`, field);
  if (fs.existsSync(abs) && fs.statSync(abs).isDirectory()) throw new ReportError('validation', `${field}: ${abs} is a folder, not a file`, field);
  return abs;
}

export function runExport(opts: ExportOptions): Promise<ExportResult> {
  const out = checkOut(opts.out, 'out');
  const job = opts.job;
  if (job.kind === 'balances') {
    if (!Number.isFinite(job.from)) throw new ReportError('validation', 'from: a start date is required for the balance report', 'from');
    if (!Number.isFinite(job.to)) throw new ReportError('validation', 'to: an end date is required for the balance report', 'to');
  }
  checkRange(job.from, job.to);
  const data: WorkerJob = {
    kind: job.kind,
    dbFile: opts.dbFile,
    out,
    from: job.from,
    to: job.to,
    bom: opts.bom ?? false,
    now: opts.now ?? Date.now(),
    stalePendingAfterMs: opts.stalePendingAfterMs ?? DEFAULT_STALE_PENDING_AFTER_MS,
  };
  if (opts.tz !== undefined) data.tz = opts.tz;
  if (job.kind === 'balances') data.snapshotsOut = snapshotsPathFor(out);
  const parts = [out + '.part', ...(data.snapshotsOut ? [data.snapshotsOut + '.part'] : [])];
  if (opts.signal?.aborted) return Promise.reject(new ReportError('cancelled', 'export cancelled'));

  return new Promise<ExportResult>((resolve, reject) => {
    let settled = false;
    let cancelling = false;
    const worker = startWorker(data);
    const cleanup = () => {
      for (const p of parts) fs.rmSync(p, { force: true });
    };
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      cancelling = true;
      void worker.terminate().then(() =>
        finish(() => {
          cleanup();
          reject(new ReportError('cancelled', 'export cancelled; the partial file was removed'));
        }),
      );
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    opts.onProgress?.({ phase: 'starting', done: 0, total: 0 });
    worker.on('message', (m: { type: string; phase?: ExportProgress['phase']; done?: number; total?: number; rows?: number; files?: string[]; message?: string }) => {
      if (settled) return;
      if (m.type === 'progress') opts.onProgress?.({ phase: m.phase ?? 'writing', done: m.done ?? 0, total: m.total ?? 0 });
      else if (m.type === 'done') finish(() => resolve({ files: m.files ?? [out], rows: m.rows ?? 0 }));
      else if (m.type === 'error')
        finish(() => {
          cleanup();
          reject(new ReportError('io', `export failed: ${m.message}`));
        });
    });
    worker.on('error', (e) =>
      finish(() => {
        cleanup();
        reject(new ReportError('internal', `export failed: ${e.message}`));
      }),
    );
    worker.on('exit', (code) => {
      if (!settled && !cancelling) {
        finish(() => {
          cleanup();
          reject(new ReportError('internal', `export worker stopped before finishing (exit code ${code})`));
        });
      }
    });
  });
}
