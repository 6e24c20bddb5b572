// Export worker entry (one job per worker; see export.ts for the protocol):
//   plan:     count the rows, pick created_at split points (an export only reads: appending an event and
//             the minute sweep keep reconciliation current)
//   segment:  write the collections rows of one created_at range to a file (header first for segment 0)
//   balances: write the balance report's two files
// Messages: {type:'plan', total, bounds} | {type:'progress', done, total} | {type:'done', rows} | {type:'error', message}.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from '../store/sqlite/connection.js';
import { readTransaction } from '../store/sqlite/transaction.js';
import { BOM, FileSink } from './csv.js';
import { createdAtAtOffset, reportRowCount } from '../store/sqlite/read/collections-report.js';
import { collectionsHeader, writeBalancesCsv, writeCollectionRows } from './writers.js';
import type { WorkerJob } from './export.js';

const job = workerData as WorkerJob;
const post = (m: unknown) => parentPort!.postMessage(m);

function openOut(file: string, bom: boolean, sync = true): { sink: FileSink; close(): void } {
  const fd = fs.openSync(file, 'w');
  const sink = new FileSink(fd);
  if (bom) sink.push(BOM);
  return {
    sink,
    close() {
      sink.flush();
      if (sync) fs.fsyncSync(fd);
      fs.closeSync(fd);
    },
  };
}

function run(): void {
  // The main process has already migrated this database; a plain connection is enough here.
  const db = openConnection(job.dbFile, 'reader');
  let last = 0;
  const progress = (done: number, total: number) => {
    const now = Date.now();
    if (done === total || done === 0 || now - last >= 100) {
      last = now;
      post({ type: 'progress', done, total });
    }
  };
  try {
    if (job.kind === 'plan') {
      const range = {
        ...(job.from !== undefined ? { from: job.from } : {}),
        ...(job.to !== undefined ? { to: job.to } : {}),
      };
      const total = reportRowCount(db, range);
      const bounds: number[] = [];
      const parts = total >= job.minRowsPerPart * 2 ? Math.max(1, job.parts) : 1;
      for (let i = 1; i < parts; i++) {
        const at = createdAtAtOffset(
          db,
          job.from ?? Number.MIN_SAFE_INTEGER,
          job.to ?? Number.MAX_SAFE_INTEGER,
          Math.floor((total * i) / parts),
        );
        if (
          at !== undefined &&
          (bounds.length === 0 || at > bounds[bounds.length - 1]!) &&
          (job.from === undefined || at > job.from)
        )
          bounds.push(at);
      }
      post({ type: 'plan', total, bounds });
    } else if (job.kind === 'segment') {
      // A later segment is a temporary file, copied into the first one and removed: syncing it to disk is
      // wasted work (the first segment's file is synced after the copy, export.ts).
      const out = openOut(job.out, job.bom, job.header === true);
      if (job.header) out.sink.push(collectionsHeader());
      const rows = readTransaction(db, () =>
        writeCollectionRows(
          db,
          {
            ...(job.from !== undefined ? { from: job.from } : {}),
            ...(job.to !== undefined ? { to: job.to } : {}),
            ...(job.tz ? { tz: job.tz } : {}),
          },
          out.sink,
          (done) => progress(done, job.expected ?? 0),
        ),
      );
      out.close();
      post({ type: 'progress', done: rows, total: job.expected ?? rows });
      post({ type: 'done', rows });
    } else {
      const summary = openOut(job.out, job.bom);
      const snaps = openOut(job.snapshotsOut!, job.bom);
      const r = readTransaction(db, () =>
        writeBalancesCsv(
          db,
          { from: job.from!, to: job.to!, ...(job.tz ? { tz: job.tz } : {}) },
          summary.sink,
          snaps.sink,
          progress,
        ),
      );
      summary.close();
      snaps.close();
      post({ type: 'done', rows: r.rows });
    }
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  } finally {
    db.close();
  }
}

run();
