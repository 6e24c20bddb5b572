// Runs a report export on a worker_thread: progress messages, cancel (AbortSignal -> the worker is
// terminated and the partial FILE.part removed), and FILE appears only when complete (rename). As CSV
// (the collections report's parts formatted by up to four workers) or as an .xlsx workbook (one worker:
// its worksheet is one deflate stream, xlsx-book.ts).
// The worker entry is export-worker.js next to this file in dist; under vitest/tsx (TypeScript source)
// the .ts entry is loaded through tsx's ESM loader registered inside the worker.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { launchWorker } from '../platform/launch-worker.js';
import type { TimeZoneOption } from './csv.js';
import { ReportError } from './errors.js';
import { checkRange } from './dates.js';
import { DEFAULT_STALE_PENDING_AFTER_MS } from '../reconcile/classify.js';
import { BOM } from './csv.js';
import { collectionsHeader } from './writers.js';
import { newPartsState, partsState, stopParts } from './export-parts.js';

export type ExportJob =
  { kind: 'collections'; from?: number; to?: number } | { kind: 'balances'; from: number; to: number };

/** CSV (stable columns for machines) or an .xlsx workbook of typed cells (for people's spreadsheets). */
export type ExportFormat = 'csv' | 'xlsx';

export interface ExportProgress {
  phase: 'starting' | 'reconciling' | 'writing';
  done: number;
  total: number;
}

export interface ExportOptions {
  /** The SQLite file (db.name of an open handle). */
  dbFile: string;
  job: ExportJob;
  /** Destination file. The balance report as CSV also writes `snapshotsPathFor(out)`. */
  out: string;
  /** Default 'csv'. */
  format?: ExportFormat;
  /** CSV only: a UTF-8 byte-order mark first. */
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

/** What a worker receives (workerData). */
export interface WorkerJob {
  kind: 'collections' | 'balances';
  format: ExportFormat;
  dbFile: string;
  out: string;
  snapshotsOut?: string;
  from?: number;
  to?: number;
  bom: boolean;
  tz?: TimeZoneOption;
  now: number;
  stalePendingAfterMs: number;
  /** collections: the workers' shared state (export-parts.ts); the first worker counts the rows. */
  parts?: SharedArrayBuffer;
  count?: boolean;
}

/** "report.csv" -> "report-snapshots.csv": the balance report's second file. */
export function snapshotsPathFor(out: string): string {
  const ext = path.extname(out);
  return ext ? out.slice(0, -ext.length) + '-snapshots' + ext : out + '-snapshots.csv';
}

/**
 * Each worker streams rows and keeps nothing: a small young generation makes V8 collect the short-lived
 * row strings early instead of growing the heap (peak memory of a 1,000,000-row export stays flat). 2 MB
 * rather than 8: a year's export in a fresh process peaked at 90-94 MB instead of 102-107, for the same
 * CPU (7.2-7.6 s, every row's strings die young either way). The old generation's limit is only a
 * ceiling (a row of several megabytes still fits).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 };

function startWorker(data: WorkerJob): Worker {
  return launchWorker(import.meta.url, 'export-worker', data, WORKER_LIMITS);
}

/** The absolute path of `out`, or why a report cannot be written there (its folder missing, a folder itself). */
export function checkExportTarget(out: string, field: string): string {
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
  if (fs.existsSync(abs) && fs.statSync(abs).isDirectory())
    throw new ReportError('validation', `${field}: ${abs} is a folder, not a file`, field);
  return abs;
}

interface WorkerMessage {
  type: 'total' | 'progress' | 'rows' | 'done' | 'error';
  total?: number;
  done?: number;
  rows?: number;
  message?: string;
}

/** Tracks every worker of one export so a cancel or a failure stops them all. */
class Crew {
  private workers = new Set<Worker>();
  cancelled = false;
  /** Told when the export stops early (a cancel, a failure), before the workers are ended. */
  onStop?: () => void;
  run(data: WorkerJob, onMessage: (m: WorkerMessage) => void): Promise<WorkerMessage> {
    if (this.cancelled)
      return Promise.reject(new ReportError('cancelled', 'export cancelled; the partial file was removed'));
    return new Promise((resolve, reject) => {
      const w = startWorker(data);
      this.workers.add(w);
      let settled = false;
      const end = (fn: () => void) => {
        if (settled) return;
        settled = true;
        this.workers.delete(w);
        fn();
      };
      w.on('message', (m: WorkerMessage) => {
        if (m.type === 'done') end(() => resolve(m));
        else if (m.type === 'error') end(() => reject(new ReportError('io', `export failed: ${m.message}`)));
        else onMessage(m);
      });
      w.on('error', (e) => end(() => reject(new ReportError('internal', `export failed: ${e.message}`))));
      w.on('exit', (code) =>
        end(() =>
          reject(
            this.cancelled
              ? new ReportError('cancelled', 'export cancelled; the partial file was removed')
              : new ReportError('internal', `export worker stopped before finishing (exit code ${code})`),
          ),
        ),
      );
    });
  }
  async stop(): Promise<void> {
    this.cancelled = true;
    this.onStop?.();
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }
}

/** Rows from which a collections export takes more worker threads than one (one per core, at most 4). */
const MORE_WORKERS_FROM = 100_000;

export async function runExport(opts: ExportOptions): Promise<ExportResult> {
  const out = checkExportTarget(opts.out, 'out');
  const job = opts.job;
  if (job.kind === 'balances') {
    if (!Number.isFinite(job.from))
      throw new ReportError('validation', 'from: a start date is required for the balance report', 'from');
    if (!Number.isFinite(job.to))
      throw new ReportError('validation', 'to: an end date is required for the balance report', 'to');
  }
  checkRange(job.from, job.to);
  if (opts.signal?.aborted) throw new ReportError('cancelled', 'export cancelled');
  const format = opts.format ?? 'csv';
  if (format === 'xlsx' && opts.bom)
    throw new ReportError('validation', 'bom: a byte-order mark is for CSV files only', 'bom');
  const base: WorkerJob = {
    kind: 'collections',
    format,
    dbFile: opts.dbFile,
    out: out + '.part',
    bom: opts.bom ?? false,
    now: opts.now ?? Date.now(),
    stalePendingAfterMs: opts.stalePendingAfterMs ?? DEFAULT_STALE_PENDING_AFTER_MS,
  };
  if (job.from !== undefined) base.from = job.from;
  if (job.to !== undefined) base.to = job.to;
  if (opts.tz !== undefined) base.tz = opts.tz;

  const crew = new Crew();
  const temp = new Set<string>([out + '.part']);
  const onAbort = () => void crew.stop();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  opts.onProgress?.({ phase: 'starting', done: 0, total: 0 });
  try {
    if (format === 'xlsx') {
      // One worker writes the whole workbook; its progress comes as the balance report's does.
      const r = await crew.run({ ...base, kind: job.kind }, (m) =>
        opts.onProgress?.({ phase: 'writing', done: m.done ?? 0, total: m.total ?? 0 }),
      );
      if (crew.cancelled) throw new ReportError('cancelled', 'export cancelled; the partial file was removed');
      fs.renameSync(base.out, out);
      return { files: [out], rows: r.rows ?? 0 };
    }
    if (job.kind === 'balances') {
      const snapshotsOut = snapshotsPathFor(out);
      temp.add(snapshotsOut + '.part');
      const r = await crew.run({ ...base, kind: 'balances', snapshotsOut: snapshotsOut + '.part' }, (m) =>
        opts.onProgress?.({ phase: 'writing', done: m.done ?? 0, total: m.total ?? 0 }),
      );
      fs.renameSync(out + '.part', out);
      fs.renameSync(snapshotsOut + '.part', snapshotsOut);
      return { files: [out, snapshotsOut], rows: r.rows ?? 0 };
    }

    opts.onProgress?.({ phase: 'reconciling', done: 0, total: 0 });
    // The header (and the mark) first; the workers write the parts after it, in order (export-parts.ts).
    const head = Buffer.from((base.bom ? BOM : '') + collectionsHeader(), 'utf8');
    fs.writeFileSync(base.out, head);
    const parts = newPartsState(base.from, head.length);
    crew.onStop = () => stopParts(partsState(parts));
    let total = 0;
    let done = 0;
    let reported = 0;
    // At most every 100 ms: a part is a few milliseconds.
    const report = (force = false) => {
      const now = Date.now();
      if (!force && now - reported < 100) return;
      reported = now;
      opts.onProgress?.({ phase: 'writing', done, total });
    };
    const onMessage = (m: WorkerMessage) => {
      if (m.type === 'rows') done += m.rows ?? 0;
      report();
    };
    const workers: Promise<WorkerMessage>[] = [];
    const counted = new Promise<void>((resolve, reject) => {
      const first = crew.run({ ...base, parts, count: true }, (m) => {
        if (m.type === 'total') {
          total = m.total ?? 0;
          resolve();
        }
        onMessage(m);
      });
      first.catch(reject);
      workers.push(first);
    });
    await counted;
    report(true);
    // More workers for a large export: they claim the parts the first one has not.
    const more = total >= MORE_WORKERS_FROM ? Math.min(4, Math.max(1, os.availableParallelism())) - 1 : 0;
    for (let i = 0; i < more; i++) workers.push(crew.run({ ...base, parts }, onMessage));
    const results = await Promise.all(workers);
    const rows = results.reduce((a, r) => a + (r.rows ?? 0), 0);
    if (crew.cancelled) throw new ReportError('cancelled', 'export cancelled; the partial file was removed');
    // On disk before it appears under its name (on the thread pool: the caller's thread keeps going).
    const fh = await fs.promises.open(base.out, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (crew.cancelled) throw new ReportError('cancelled', 'export cancelled; the partial file was removed');
    fs.renameSync(base.out, out);
    opts.onProgress?.({ phase: 'writing', done: rows, total: rows });
    return { files: [out], rows };
  } catch (e) {
    await crew.stop();
    for (const f of temp) fs.rmSync(f, { force: true });
    throw e;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
