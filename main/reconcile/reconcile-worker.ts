// Worker entry for a full reconciliation off the main thread (reconcileAllInWorker). Its own SQLite
// connection, which writes (openFullPassWriter: its settings and why); helper threads of its own compute
// the ranges (reconcileAllOnThreads). Progress and the result go back as messages; its memory is
// released when it ends.
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointPassive, openFullPassWriter, releaseMemory } from '../store/sqlite/reconcile/full-pass.js';
import { reconcileAllOnThreads } from './reconcile-on-threads.js';
import { messageOf } from '../errors.shared.js';

const job = workerData as { dbFile: string; now: number; stalePendingAfterMs: number; batchSize?: number };
const db = openFullPassWriter(job.dbFile);
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
  // The result is final and durable (the last commit is synced): unmap the file first (the caller may go
  // on with memory-hungry work at once), report it, then copy the WAL back in one checkpoint for the whole
  // run (no automatic checkpoint on this connection), which the caller need not wait for.
  releaseMemory(db);
  parentPort!.postMessage({ type: 'done', ...r });
  checkpointPassive(db);
} catch (e) {
  parentPort!.postMessage({ type: 'error', message: messageOf(e) });
} finally {
  db.close();
}
