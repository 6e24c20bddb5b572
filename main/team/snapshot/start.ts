// A new desk's start from the team's newest snapshot: download it beside the desk's database, verify
// every row of it against team.events (verify.ts), copy its two tables into the (still empty) desk in
// ONE transaction, record its seq, and reconcile. The incremental path then takes the events after it.
//
// Why it is fast: the replay (sync/bulk.ts) spends its time inserting 3.6 M events one by one and then
// building the indexes; here SQLite copies the snapshot's tables and indexes page by page (its transfer
// optimisation for INSERT INTO t SELECT * FROM other.t into an empty table without triggers: the
// triggers are dropped and made again in the same transaction, foreign keys checked off for it), and
// the verification only reads, sequentially, while PostgreSQL sends the next page.
//
// What a desk trusts: nothing more than with the replay. Every event row and every collection row of
// the snapshot must equal what the replay makes of PostgreSQL's events (actors as the database
// recorded them), and the reconciliation is computed here. The indexes come as the publisher's SQLite
// built them; a background check (checkIndexes) compares them with the tables after the start and
// rebuilds any that differ.
//
// Any refusal (no snapshot of this schema version, damaged, not the record, the desk no longer empty)
// leaves the desk as it was, and the caller replays instead.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import type pg from 'pg';
import type { Db } from '../../store/db.js';
import { writeTransaction } from '../../store/transaction.js';
import { reconcileAll } from '../../reconcile/reconcile.js';
import { setLastSeq } from '../sync/apply.js';
import { bulkIndexes, bulkTriggers, isEmpty, presentSchema } from '../sync/bulk.js';
import { SnapshotRejectedError } from './rejected.js';
import { downloadSnapshot, newestSnapshot, type SnapshotInfo } from './store.js';
import { snapshotSchemaVersion, verifySnapshot } from './verify.js';

export interface SnapshotStartOptions {
  pool: pg.Pool;
  db: Db;
  now: () => number;
  chunk?: number;
  /** How far the verification is, by seq, against the snapshot's seq. */
  onProgress?: (p: { copiedSeq: number; totalSeq: number }) => void;
  stopped?: () => boolean;
  /** Told as each phase ends (the bench measures them apart). */
  onPhase?: (phase: 'download' | 'verify' | 'copy' | 'checkpoint' | 'reconcile') => void;
}

export type SnapshotStart =
  | { started: true; applied: number; lastSeq: number; snapshot: SnapshotInfo }
  | { started: false; reason: string; snapshot: SnapshotInfo | null };

export async function snapshotStart(o: SnapshotStartOptions): Promise<SnapshotStart | null> {
  const { db } = o;
  const info = await newestSnapshot(o.pool, snapshotSchemaVersion());
  if (!info) return { started: false, reason: 'the team has no snapshot of this version yet', snapshot: null };
  const file = `${db.name}.snapshot`;
  fs.rmSync(file, { force: true });
  try {
    o.onProgress?.({ copiedSeq: 0, totalSeq: info.uptoSeq });
    await downloadSnapshot(o.pool, info, file);
    o.onPhase?.('download');
    const snap = new Database(file, { readonly: true, fileMustExist: true });
    let verified: { events: number; collections: number } | null;
    try {
      verified = await verifySnapshot({
        pool: o.pool,
        snap,
        uptoSeq: info.uptoSeq,
        ...(o.chunk ? { chunk: o.chunk } : {}),
        onProgress: (seq) => o.onProgress?.({ copiedSeq: seq, totalSeq: info.uptoSeq }),
        ...(o.stopped ? { stopped: o.stopped } : {}),
      });
    } finally {
      snap.close();
    }
    if (!verified) return null;
    o.onPhase?.('verify');
    if (verified.events !== info.events || verified.collections !== info.collections)
      throw new SnapshotRejectedError(
        `it holds ${verified.events} events and ${verified.collections} collections, its publisher said ${info.events} and ${info.collections}`,
      );
    adopt(db, file, info.uptoSeq, o.now());
    o.onPhase?.('copy');
    // The copy went through the WAL; fold it into the database now rather than at some later commit.
    db.pragma('wal_checkpoint(TRUNCATE)');
    o.onPhase?.('checkpoint');
    await reconcileAll(db, { now: o.now() });
    o.onPhase?.('reconcile');
    return { started: true, applied: verified.events, lastSeq: info.uptoSeq, snapshot: info };
  } catch (e) {
    if (e instanceof SnapshotRejectedError) return { started: false, reason: e.message, snapshot: info };
    throw e;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** The verified snapshot's tables into the desk, with the seq they reach, in one transaction. */
function adopt(db: Db, file: string, uptoSeq: number, now: number): void {
  const triggers = bulkTriggers(false);
  db.pragma('foreign_keys = OFF');
  db.prepare('ATTACH DATABASE ? AS snap').run(file);
  try {
    writeTransaction(db, () => {
      if (!isEmpty(db)) throw new SnapshotRejectedError('this desk stored records while it was checked');
      const present = presentSchema(db);
      for (const name of triggers.keys()) if (present.has(name)) db.exec(`DROP TRIGGER main.${name}`);
      db.exec('INSERT INTO main.collections SELECT * FROM snap.collections');
      db.exec('INSERT INTO main.collection_events SELECT * FROM snap.collection_events');
      for (const sql of triggers.values()) db.exec(sql);
      // An earlier replay cut short right after dropping them (sync/bulk.ts): made here.
      for (const [name, sql] of bulkIndexes()) if (!present.has(name)) db.exec(sql);
      setLastSeq(db, 'events', uptoSeq, now);
    });
  } finally {
    db.exec('DETACH DATABASE snap');
    db.pragma('foreign_keys = ON');
  }
}
