// Export worker entry (one job per worker; see export.ts for the protocol):
//   collections: claim parts of the collections rows, format each in memory and write it at its place
//                in the file (export-parts.ts); the first worker counts the rows first, for progress
//                (an export only reads: appending an event and the minute sweep keep reconciliation current)
//   balances:    write the balance report's two files
//   xlsx:        either report as one workbook (xlsx-writers.ts), written by this worker alone
// Messages: {type:'total', total} | {type:'progress', done, total} (balances) | {type:'rows', rows} (a
// part's rows, collections) | {type:'done', rows} | {type:'error', message}.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from '../store/sqlite/connection.js';
import { readTransaction } from '../store/sqlite/transaction.js';
import { BOM, FileSink, MemorySink } from './csv.js';
import { partEnd, reportRowCount } from '../store/sqlite/read/collections-report.js';
import { collectionRowsWriter } from './collection-rows.js';
import { writeBalancesCsv } from './balances-writer.js';
import { XlsxBook } from './xlsx-book.js';
import { writeBalancesXlsx, writeCollectionsXlsx } from './xlsx-writers.js';
import type { WorkerJob } from './export.js';
import {
  claimPart,
  HELD_PARTS,
  isTurn,
  PART_ROWS,
  partsState,
  PartsStopped,
  stopParts,
  writeInTurn,
} from './export-parts.js';
import { messageOf } from '../errors.shared.js';

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
    if (job.format === 'xlsx') {
      const fd = fs.openSync(job.out, 'w');
      try {
        const book = new XlsxBook(fd);
        const range = {
          ...(job.from !== undefined ? { from: job.from } : {}),
          ...(job.to !== undefined ? { to: job.to } : {}),
        };
        const tz = job.tz ? { tz: job.tz } : {};
        const r =
          job.kind === 'collections'
            ? writeCollectionsXlsx(db, { ...range, ...tz }, book, progress)
            : readTransaction(db, () => writeBalancesXlsx(db, { from: job.from!, to: job.to!, ...tz }, book, progress));
        book.close();
        fs.fsyncSync(fd);
        post({ type: 'done', rows: r.rows });
      } finally {
        fs.closeSync(fd);
      }
    } else if (job.kind === 'collections') {
      const state = partsState(job.parts!);
      const range = {
        ...(job.from !== undefined ? { from: job.from } : {}),
        ...(job.to !== undefined ? { to: job.to } : {}),
      };
      if (job.count) post({ type: 'total', total: reportRowCount(db, range) });
      const fd = fs.openSync(job.out, 'r+');
      try {
        // Each part is read in a transaction of its own: a part is a few milliseconds, and a long read
        // would keep the WAL from being checkpointed for the whole export.
        const write = collectionRowsWriter(db, job.tz);
        const free = Array.from({ length: HELD_PARTS }, () => new MemorySink());
        const held: { index: number; sink: MemorySink }[] = [];
        const writeHead = () => {
          const { index, sink } = held.shift()!;
          writeInTurn(state, fd, index, sink.bytes());
          free.push(sink);
        };
        let rows = 0;
        for (;;) {
          // Written as soon as it is its turn; a worker holding HELD_PARTS waits for the first one's.
          while (held.length && isTurn(state, held[0]!.index)) writeHead();
          if (held.length === HELD_PARTS) writeHead();
          const part = claimPart(state, job.to, (from) => partEnd(db, from, job.to, PART_ROWS));
          if (!part) break;
          const sink = free.pop()!;
          sink.reset();
          const n = readTransaction(db, () =>
            write(
              {
                ...(part.from !== undefined ? { from: part.from } : {}),
                ...(part.to !== undefined ? { to: part.to } : {}),
              },
              sink,
            ),
          );
          sink.flush();
          held.push({ index: part.index, sink });
          rows += n;
          post({ type: 'rows', rows: n });
        }
        while (held.length) writeHead();
        post({ type: 'done', rows });
      } catch (e) {
        stopParts(state);
        throw e;
      } finally {
        fs.closeSync(fd);
      }
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
    // A worker told to stop because another failed says nothing: that one's error is the export's.
    if (!(e instanceof PartsStopped)) post({ type: 'error', message: messageOf(e) });
  } finally {
    db.close();
  }
}

run();
