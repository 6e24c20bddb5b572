// A new desk's start from the team's newest snapshot: download it beside the desk's database, check it
// (its events against the hash chain, chain.ts, and every row against what the replay makes of those
// events, verify.ts), copy its two tables into the (still empty) desk in ONE transaction, record its seq,
// and reconcile. The incremental path then takes the events after it.
//
// Why it is faster: the replay (sync/bulk.ts) spends its time inserting 3.6 M events one by one and then
// building the indexes; here SQLite copies the snapshot's tables and indexes record by record in order
// (copy-worker.ts), and the checks only read the file, sequentially: of the record, PostgreSQL sends one
// row, its head at the snapshot's seq. The chain check, the row check and the copy run at once, each on a
// thread of its own (run-checks.ts, copy-run.ts), and the copy commits only after both checks passed.
//
// What a desk trusts: nothing more than with the replay. The file's events must hash, one onto the
// other, to the head team.events holds, so they are the record's; every event row and every collection
// row of the snapshot must equal what the replay makes of them (actors as the database recorded them),
// whatever its id, and the reconciliation is computed here. The indexes are not taken on trust: each
// table's indexes in the file are proven against its rows (on threads of their own, while the copy
// transfers them as they are), and the copy rebuilds them from the rows before it commits when they do
// not match. A forged index is not harmless: a unique index on merchant_reference
// decides which collection a later callback lands on.
//
// Any refusal (no snapshot of this schema version, damaged, not the record, the desk no longer empty)
// leaves the desk as it was, and the caller replays instead.
import fs from 'node:fs';
import type { Db } from '../../store/sqlite/connection.js';
import { startCopy, type CopyRun } from './copy-run.js';
import { runChecks } from './run-checks.js';
import type { SnapshotStartOptions } from './start-options.js';
import { SnapshotRejectedError } from './rejected.js';
import { downloadSnapshot, newestSnapshot, type SnapshotInfo } from './store.js';
import { snapshotSchemaVersion } from './file-schema.js';
import type { ChainHead } from '../chain.js';

export type SnapshotStart =
  | {
      started: true;
      applied: number;
      lastSeq: number;
      snapshot: SnapshotInfo;
      head: ChainHead;
      marks: ChainHead[];
      /** Signed events whose signatures the desk re-checks now that the copy is shown (0: none, reconciled). */
      signaturesToCheck: number;
    }
  | { started: false; reason: string; snapshot: SnapshotInfo | null };

/** Where a desk downloads a snapshot: beside its database, owner-only like it. */
const downloadFile = (db: Db): string => `${db.name}.snapshot`;

/** A download left by a desk stopped part way (a crash, a power cut): never read, only removed. */
export function removeLeftoverDownload(db: Db): void {
  fs.rmSync(downloadFile(db), { force: true });
}

export async function snapshotStart(o: SnapshotStartOptions): Promise<SnapshotStart | null> {
  const { db } = o;
  const info = await newestSnapshot(o.pool, snapshotSchemaVersion());
  if (!info) return { started: false, reason: 'the team has no snapshot of this version yet', snapshot: null };
  const databaseUrl = o.pool.options.connectionString;
  if (!databaseUrl) return { started: false, reason: 'the team pool has no connection URL', snapshot: info };
  const file = downloadFile(db);
  removeLeftoverDownload(db);
  let copy: CopyRun | undefined;
  try {
    o.onProgress?.({ copiedSeq: 0, totalSeq: info.uptoSeq });
    await downloadSnapshot(o.pool, info, file);
    o.onPhase?.('download');
    // The checks and the copy run at once, each on a thread of its own: the copy commits only once both
    // checks have passed.
    copy = startCopy({ dbFile: db.name, snapshotFile: file, uptoSeq: info.uptoSeq, now: o.now() });
    const checked = await runChecks(o, info, file, databaseUrl);
    if (!checked) return null;
    const { verified, deferred } = checked;
    await copy.commit(deferred ? { signed: verified.signed, events: verified.events } : undefined, checked.reindex);
    copy = undefined;
    o.onPhase?.('copy');
    // The copy went through the WAL: the copy's thread folds it into the database once it has committed
    // (copy-worker.ts), while the desk goes on, rather than the desk's thread or some later commit.
    // Deferred, nothing is reconciled until the signatures are checked: no collection counts as matched
    // on a signature this desk has not checked (sync/signature-check.ts reconciles when it is done).
    if (!deferred) {
      await o.ledger.reconcileHistory(db, { now: o.now() });
      o.onPhase?.('reconcile');
    }
    return {
      signaturesToCheck: deferred ? verified.signed : 0,
      started: true,
      applied: verified.events,
      lastSeq: info.uptoSeq,
      snapshot: info,
      head: checked.head,
      marks: checked.marks,
    };
  } catch (e) {
    if (e instanceof SnapshotRejectedError) return { started: false, reason: e.message, snapshot: info };
    throw e;
  } finally {
    await copy?.rollback();
    fs.rmSync(file, { force: true });
  }
}
