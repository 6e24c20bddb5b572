// Worker entry for copying a snapshot's two tables into the desk (start.ts), on a connection of its
// own, while the main thread's check of the same file is still running: the copy is done inside ONE
// write transaction that commits only when told the check passed, and rolls back otherwise, so an
// unchecked row is never visible (how the tables are copied: store/sqlite/team/snapshot-copy.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from '../../store/sqlite/connection.js';
import { syncWal } from '../../store/sqlite/wal-sync.js';
import { setLastSeq } from '../../store/sqlite/team/sync-state.js';
import { isEmpty } from '../../store/sqlite/team/bulk-copy.js';
import { owesSignatureCheck } from '../../store/sqlite/team/signature-check-state.js';
import {
  attachSnapshot,
  beginCopy,
  copySnapshotTables,
  detachSnapshot,
  endCopy,
  foldCopiedWal,
  rebuildIndexes,
} from '../../store/sqlite/team/snapshot-copy.js';
import { messageOf } from '../../errors.shared.js';

export interface CopyJob {
  dbFile: string;
  snapshotFile: string;
  uptoSeq: number;
  now: number;
}

/**
 * What the main thread tells the copy once the check is over. `signatureCheck`: the check took the
 * snapshot's verdicts on `signed` signed events (verify.ts deferSignatures): the copy records, in the
 * same transaction, that the desk re-checks them (store migration 18, sync/signature-check.ts), so no
 * copy is ever visible without that record.
 */
export type CopyCommand =
  | { what: 'rollback' }
  | {
      what: 'commit';
      signatureCheck?: { signed: number; events: number };
      /** Tables whose indexes in the file do not match their rows: rebuilt here before the commit. */
      reindex?: ('collections' | 'collection_events')[];
    };

export type CopyMessage =
  | { type: 'copied' }
  | { type: 'committed' }
  | { type: 'rolled-back' }
  | { type: 'refused'; reason: string }
  | { type: 'error'; message: string };

const job = workerData as CopyJob;
const post = (m: CopyMessage) => parentPort!.postMessage(m);
const db = openConnection(job.dbFile, 'bulk');
attachSnapshot(db, job.snapshotFile);
let open = false;
try {
  beginCopy(db);
  open = true;
  if (!isEmpty(db)) {
    post({ type: 'refused', reason: 'this desk stored records while the snapshot was downloaded' });
  } else {
    copySnapshotTables(db);
    setLastSeq(db, 'events', job.uptoSeq, job.now);
    // Written out now, while the check still runs: the commit then syncs little more than its own frame.
    await syncWal(job.dbFile);
    post({ type: 'copied' });
  }
} catch (e) {
  post({ type: 'error', message: messageOf(e) });
}
parentPort!.on('message', (m: CopyCommand) => {
  try {
    if (open && m.what === 'commit') for (const table of m.reindex ?? []) rebuildIndexes(db, table);
    if (open && m.what === 'commit' && m.signatureCheck)
      owesSignatureCheck(db, {
        uptoEventId: m.signatureCheck.events,
        uptoSeq: job.uptoSeq,
        signedTotal: m.signatureCheck.signed,
        startedAt: job.now,
      });
    if (open) endCopy(db, m.what);
    const committed = open && m.what === 'commit';
    open = false;
    post({ type: m.what === 'commit' ? 'committed' : 'rolled-back' });
    // The desk shows the copy now; its WAL is folded into the database here, off the desk's thread.
    if (committed)
      try {
        foldCopiedWal(db);
      } catch {
        // Folded by the desk's own checkpoints later: the WAL is synced, the copy committed.
      }
  } catch (e) {
    post({ type: 'error', message: messageOf(e) });
  } finally {
    if (open) endCopy(db, 'rollback');
    detachSnapshot(db);
    db.close();
    parentPort!.close();
  }
});
