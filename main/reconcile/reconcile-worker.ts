// Worker entry for a full reconciliation off the main thread (reconcileAllInWorker). Its own SQLite
// connection, which writes; helper threads of its own compute the ranges (reconcileAllOnThreads).
// Progress and the result go back as messages; its memory is released when it ends.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { reconcileAllOnThreads } from './reconcile.js';

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
// a range's commit need not wait for the disk (WAL with synchronous NORMAL stays consistent after a
// crash); the run's last commit is synced (reconcile.ts, finish), and with it every range before it.
db.pragma('foreign_keys = OFF');
db.pragma('synchronous = NORMAL');
// Each range writes more pages than the automatic checkpoint's threshold, so every commit would copy
// the WAL back into the database (rewriting the same index pages each time): checkpoint once, at the end.
db.pragma('wal_autocheckpoint = 0');
try {
  let last = 0;
  const r = await reconcileAllOnThreads(db, {
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
  // The result is final and durable (the last commit is synced): report it, then copy the WAL back in
  // one checkpoint for the whole run (see wal_autocheckpoint above), which the caller need not wait for;
  // PASSIVE never waits for a reader or blocks a writer.
  parentPort!.postMessage({ type: 'done', ...r });
  db.pragma('wal_checkpoint(PASSIVE)');
} catch (e) {
  parentPort!.postMessage({ type: 'error', message: e instanceof Error ? e.message : String(e) });
} finally {
  db.close();
}
