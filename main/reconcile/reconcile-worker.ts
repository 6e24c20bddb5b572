// Worker entry for a full reconciliation off the main thread (reconcileAllInWorker). Its own SQLite
// connection; progress and the result go back as messages; its memory is released when it ends.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { reconcileAll } from './reconcile.js';

const job = workerData as { dbFile: string; now: number; stalePendingAfterMs: number; batchSize?: number };
const db = new Database(job.dbFile);
db.pragma('busy_timeout = 5000');
// The set-based pass materializes a range's aggregates and reads a million-row index: keep both in memory,
// and read the file through a memory map rather than copying every page into the cache.
db.pragma('temp_store = MEMORY');
db.pragma('cache_size = -65536');
db.pragma('mmap_size = 4294967296');
// Every row this connection writes is keyed by an id it has just read from collections, so the foreign
// key check (a lookup per row) can only pass; and the table is a projection that a re-run rebuilds, so
// a commit need not wait for the disk (WAL with synchronous NORMAL stays consistent after a crash).
db.pragma('foreign_keys = OFF');
db.pragma('synchronous = NORMAL');
try {
  let last = 0;
  const r = await reconcileAll(db, {
    now: job.now,
    stalePendingAfterMs: job.stalePendingAfterMs,
    ...(job.batchSize ? { batchSize: job.batchSize } : {}),
    onProgress: (p) => {
      const t = Date.now();
      if (p.done === p.total || t - last >= 100) {
        last = t;
        parentPort!.postMessage({ type: 'progress', ...p });
      }
    },
  });
  parentPort!.postMessage({ type: 'done', ...r });
} catch (e) {
  parentPort!.postMessage({ type: 'error', message: e instanceof Error ? e.message : String(e) });
} finally {
  db.close();
}
