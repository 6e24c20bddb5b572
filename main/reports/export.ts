// Runs a report export on a worker_thread: progress messages, cancel (AbortSignal -> the worker is
// terminated and the partial FILE.part removed), and FILE appears only when complete (rename).
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

export type ExportJob =
  { kind: 'collections'; from?: number; to?: number } | { kind: 'balances'; from: number; to: number };

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

/** What a worker receives (workerData). */
export interface WorkerJob {
  kind: 'plan' | 'segment' | 'balances';
  dbFile: string;
  out: string;
  snapshotsOut?: string;
  from?: number;
  to?: number;
  bom: boolean;
  tz?: TimeZoneOption;
  now: number;
  stalePendingAfterMs: number;
  /** plan: how many segments at most, and the fewest rows worth a segment of its own. */
  parts: number;
  minRowsPerPart: number;
  /** segment: write the header first; rows expected (for progress). */
  header?: boolean;
  expected?: number;
}

/** "report.csv" -> "report-snapshots.csv": the balance report's second file. */
export function snapshotsPathFor(out: string): string {
  const ext = path.extname(out);
  return ext ? out.slice(0, -ext.length) + '-snapshots' + ext : out + '-snapshots.csv';
}

/**
 * Each worker streams rows and keeps nothing: a small young generation makes V8 collect the short-lived
 * row strings early instead of growing the heap (peak memory of a 1,000,000-row export stays flat).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 96 };

function startWorker(data: WorkerJob): Worker {
  return launchWorker(import.meta.url, 'export-worker', data, WORKER_LIMITS);
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
  if (fs.existsSync(abs) && fs.statSync(abs).isDirectory())
    throw new ReportError('validation', `${field}: ${abs} is a folder, not a file`, field);
  return abs;
}

interface WorkerMessage {
  type: 'plan' | 'progress' | 'done' | 'error';
  total?: number;
  bounds?: number[];
  done?: number;
  rows?: number;
  message?: string;
}

/** Tracks every worker of one export so a cancel or a failure stops them all. */
class Crew {
  private workers = new Set<Worker>();
  cancelled = false;
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
        if (m.type === 'done' || m.type === 'plan') end(() => resolve(m));
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
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }
}

/** Rows at which a collections export is split across worker threads (one per core, at most 4). */
const MIN_ROWS_PER_PART = 50_000;

export async function runExport(opts: ExportOptions): Promise<ExportResult> {
  const out = checkOut(opts.out, 'out');
  const job = opts.job;
  if (job.kind === 'balances') {
    if (!Number.isFinite(job.from))
      throw new ReportError('validation', 'from: a start date is required for the balance report', 'from');
    if (!Number.isFinite(job.to))
      throw new ReportError('validation', 'to: an end date is required for the balance report', 'to');
  }
  checkRange(job.from, job.to);
  if (opts.signal?.aborted) throw new ReportError('cancelled', 'export cancelled');
  const base: WorkerJob = {
    kind: 'plan',
    dbFile: opts.dbFile,
    out: out + '.part',
    bom: opts.bom ?? false,
    now: opts.now ?? Date.now(),
    stalePendingAfterMs: opts.stalePendingAfterMs ?? DEFAULT_STALE_PENDING_AFTER_MS,
    parts: Math.min(4, Math.max(1, os.availableParallelism())),
    minRowsPerPart: MIN_ROWS_PER_PART,
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
    const plan = await crew.run({ ...base, kind: 'plan' }, () => {});
    const total = plan.total ?? 0;
    const bounds = plan.bounds ?? [];
    const edges = [base.from, ...bounds, base.to];
    const done = new Array<number>(bounds.length + 1).fill(0);
    const report = () => opts.onProgress?.({ phase: 'writing', done: done.reduce((a, b) => a + b, 0), total });
    report();
    const files = done.map((_, i) => (i === 0 ? out + '.part' : `${out}.part${i}`));
    for (const f of files) temp.add(f);
    const results = await Promise.all(
      files.map((file, i) => {
        const seg: WorkerJob = {
          ...base,
          kind: 'segment',
          out: file,
          bom: i === 0 && base.bom,
          header: i === 0,
          expected: total,
        };
        delete seg.from;
        delete seg.to;
        if (edges[i] !== undefined) seg.from = edges[i]!;
        if (edges[i + 1] !== undefined) seg.to = edges[i + 1]!;
        return crew.run(seg, (m) => {
          done[i] = m.done ?? 0;
          report();
        });
      }),
    );
    const rows = results.reduce((a, r) => a + (r.rows ?? 0), 0);
    // Put the segments after the first one, in order, then make the file appear whole.
    if (files.length > 1) {
      const fd = fs.openSync(files[0]!, 'a');
      try {
        const buf = Buffer.allocUnsafe(1 << 22);
        for (const f of files.slice(1)) {
          if (crew.cancelled) throw new ReportError('cancelled', 'export cancelled; the partial file was removed');
          const src = await fs.promises.open(f, 'r');
          try {
            for (;;) {
              const { bytesRead } = await src.read(buf, 0, buf.length, null);
              if (bytesRead === 0) break;
              let off = 0;
              while (off < bytesRead) off += fs.writeSync(fd, buf, off, bytesRead - off);
            }
          } finally {
            await src.close();
          }
          fs.rmSync(f, { force: true });
        }
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
    if (crew.cancelled) throw new ReportError('cancelled', 'export cancelled; the partial file was removed');
    fs.renameSync(files[0]!, out);
    done.fill(0);
    done[0] = rows;
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
