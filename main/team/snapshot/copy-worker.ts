// Worker entry for copying a snapshot's two tables into the desk (start.ts), on a connection of its
// own, while the main thread's check of the same file is still running: the copy is done inside ONE
// write transaction that commits only when told the check passed, and rolls back otherwise, so an
// unchecked row is never visible. SQLite copies page by page only into a table without triggers (its
// transfer optimisation for INSERT INTO t SELECT * FROM other.t), so the triggers are dropped and made
// again inside the same transaction; foreign keys are off on this connection (the rows are the
// snapshot's, whose every collection id the check confirms).
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from '../../store/sqlite/connection.js';
import { syncWal } from '../../store/sqlite/wal-sync.js';
import { setLastSeq } from '../sync/apply.js';
import { bulkIndexes, bulkTriggers, isEmpty, presentSchema } from '../sync/bulk.js';

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
  { what: 'rollback' } | { what: 'commit'; signatureCheck?: { signed: number; events: number } };

export type CopyMessage =
  | { type: 'copied' }
  | { type: 'committed' }
  | { type: 'rolled-back' }
  | { type: 'refused'; reason: string }
  | { type: 'error'; message: string };

const job = workerData as CopyJob;
const post = (m: CopyMessage) => parentPort!.postMessage(m);
const db = openConnection(job.dbFile, 'bulk');
db.prepare('ATTACH DATABASE ? AS snap').run(job.snapshotFile);
// The snapshot is read once, in order, through a memory map instead of a copy per page into the cache.
db.pragma('snap.mmap_size = 4294967296');
let open = false;
try {
  db.exec('BEGIN IMMEDIATE');
  open = true;
  if (!isEmpty(db)) {
    post({ type: 'refused', reason: 'this desk stored records while the snapshot was downloaded' });
  } else {
    const triggers = bulkTriggers(false);
    const present = presentSchema(db);
    for (const name of triggers.keys()) if (present.has(name)) db.exec(`DROP TRIGGER main.${name}`);
    db.exec('INSERT INTO main.collections SELECT * FROM snap.collections');
    db.exec('INSERT INTO main.collection_events SELECT * FROM snap.collection_events');
    // The transfer above copies index b-trees as they are in the file, and the check compares rows, not
    // indexes: an index decides where a value goes (a forged merchant_reference index sent reference A's
    // callback to collection B), so every index of both tables is rebuilt here from the checked rows.
    db.exec('REINDEX main.collections');
    db.exec('REINDEX main.collection_events');
    for (const sql of triggers.values()) db.exec(sql);
    // An earlier replay cut short right after dropping them (sync/bulk.ts): made here.
    for (const [name, sql] of bulkIndexes()) if (!present.has(name)) db.exec(sql);
    setLastSeq(db, 'events', job.uptoSeq, job.now);
    // Written out now, while the check still runs: the commit then syncs little more than its own frame.
    await syncWal(job.dbFile);
    post({ type: 'copied' });
  }
} catch (e) {
  post({ type: 'error', message: (e as Error).message });
}
parentPort!.on('message', (m: CopyCommand) => {
  try {
    if (open && m.what === 'commit' && m.signatureCheck)
      db.prepare(
        `INSERT INTO team_signature_check (one_row, upto_event_id, upto_seq, signed_total, started_at)
         VALUES (1, ?, ?, ?, ?)`,
      ).run(m.signatureCheck.events, job.uptoSeq, m.signatureCheck.signed, job.now);
    if (open) db.exec(m.what === 'commit' ? 'COMMIT' : 'ROLLBACK');
    open = false;
    post({ type: m.what === 'commit' ? 'committed' : 'rolled-back' });
  } catch (e) {
    post({ type: 'error', message: (e as Error).message });
  } finally {
    if (open) db.exec('ROLLBACK');
    db.exec('DETACH DATABASE snap');
    db.close();
    parentPort!.close();
  }
});
