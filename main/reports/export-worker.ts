// Export worker entry: streams one report from SQLite into FILE.part, then renames it to FILE.
// Messages to the parent: {type:'progress', phase, done, total} | {type:'done', rows, files} | {type:'error', message}.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { reconcileNew } from '../reconcile/reconcile.js';
import { BOM } from './csv.js';
import { writeBalancesCsv, writeCollectionsCsv } from './writers.js';
import type { WorkerJob } from './export.js';

const job = workerData as WorkerJob;
const post = (m: unknown) => parentPort!.postMessage(m);

class PartFile {
  readonly part: string;
  private fd: number;
  constructor(readonly file: string, bom: boolean) {
    this.part = file + '.part';
    this.fd = fs.openSync(this.part, 'w');
    if (bom) fs.writeSync(this.fd, BOM, null, 'utf8');
  }
  write = (chunk: string) => {
    fs.writeSync(this.fd, chunk, null, 'utf8');
  };
  finish(): void {
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    fs.renameSync(this.part, this.file);
  }
  abandon(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
    fs.rmSync(this.part, { force: true });
  }
}

function run(): void {
  // The main process has already migrated this database; a plain connection is enough here.
  const db = new Database(job.dbFile);
  db.pragma('busy_timeout = 5000');
  const files: PartFile[] = [];
  let last = 0;
  const progress = (phase: string) => (done: number, total: number) => {
    const now = Date.now();
    if (done === total || done === 0 || now - last >= 100) {
      last = now;
      post({ type: 'progress', phase, done, total });
    }
  };
  try {
    if (job.kind === 'collections') {
      post({ type: 'progress', phase: 'reconciling', done: 0, total: 0 });
      reconcileNew(db, { now: job.now, stalePendingAfterMs: job.stalePendingAfterMs });
      const f = new PartFile(job.out, job.bom);
      files.push(f);
      const r = db.transaction(() => writeCollectionsCsv(db, { from: job.from, to: job.to, tz: job.tz }, f.write, progress('writing')))();
      f.finish();
      post({ type: 'done', rows: r.rows, files: [job.out] });
    } else {
      const summary = new PartFile(job.out, job.bom);
      files.push(summary);
      const snaps = new PartFile(job.snapshotsOut!, job.bom);
      files.push(snaps);
      const r = db.transaction(() =>
        writeBalancesCsv(db, { from: job.from!, to: job.to!, tz: job.tz }, summary.write, snaps.write, progress('writing')),
      )();
      summary.finish();
      snaps.finish();
      post({ type: 'done', rows: r.rows, files: [job.out, job.snapshotsOut] });
    }
  } catch (e) {
    for (const f of files) f.abandon();
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  } finally {
    db.close();
  }
}

run();
