// A desk's start on the team record, before its first incremental pull: an empty desk starts from the
// team's snapshot once it has checked it (snapshot/start.ts), or else copies the history in bulk
// (bulk.ts); a bulk start or full recompute cut short by a crash is finished here before anything else.
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import { isEmpty, needsFullReconcile } from '../../store/sqlite/team/bulk-copy.js';
import { bulkStart, wantsBulkStart } from './bulk.js';
import { removeLeftoverDownload, snapshotStart } from '../snapshot/start.js';
import type { ChainHead } from '../chain.js';
import type { EventVerifier } from '../evidence.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import { signatureCheckProgress } from './signature-check.js';
import type { Ledger } from '../../collections/ledger.js';

export interface DeskStartOptions {
  pool: pg.Pool;
  db: Db;
  /** Reconciles what a start copied, or what a start cut short left unreconciled. */
  ledger: Ledger;
  clock: Clock;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** false: an empty desktop catches up through the incremental path too (the equality test's reference). */
  bulkStart?: boolean | undefined;
  /** false: a new desktop replays the events even when the team has a snapshot. */
  snapshots?: boolean | undefined;
  /** Events per page and per transaction of the bulk start. */
  bulkChunk?: number | undefined;
  onProgress(p: { copiedSeq: number; totalSeq: number }): void;
  stopped(): boolean;
  /** The hash chain's check (chain-check.ts): runs the bulk copy (which checks the chain as it copies) and keeps the head it reached. */
  chain?: { starting<T>(start: Promise<T>): Promise<T>; started(head: ChainHead, marks: readonly ChainHead[]): void };
  /** The keys this desk checks signed events with (team/evidence.ts): the snapshot check reads them once. */
  keys?: (() => SignatureKeys) | undefined;
  /** This desk's own check of each signed event (team/evidence.ts), for the bulk copy. */
  verify?: EventVerifier | undefined;
}

export interface DeskStarted {
  /** Events copied at once (0 when the desk had started before). */
  applied: number;
  /** The seq the copy reached, or null when nothing was copied. */
  lastSeq: number | null;
  from: 'snapshot' | 'replay';
}

/** Starts the desk, or finishes a start cut short; null when it was stopped part way (the next pull starts again). */
export async function startDesk(o: DeskStartOptions): Promise<DeskStarted | null> {
  const { db, logger } = o;
  removeLeftoverDownload(db);
  if (o.bulkStart !== false && wantsBulkStart(db)) {
    const start = {
      pool: o.pool,
      db,
      ledger: o.ledger,
      now: () => o.clock.now(),
      ...(o.bulkChunk ? { chunk: o.bulkChunk } : {}),
      onProgress: o.onProgress,
      stopped: o.stopped,
      ...(o.keys ? { keys: o.keys } : {}),
      ...(o.verify ? { verify: o.verify } : {}),
    };
    let r: { applied: number; lastSeq: number; head: ChainHead; marks: ChainHead[] } | null = null;
    let from: 'snapshot' | 'replay' = 'replay';
    if (o.snapshots !== false && isEmpty(db)) {
      const s = await snapshotStart(start);
      if (!s) return null; // closing: the next start begins again
      if (s.started) {
        r = s;
        from = 'snapshot';
        logger.info(
          { snapshot: s.snapshot.id, uptoSeq: s.lastSeq, madeBy: s.snapshot.madeBy },
          'team sync: started from the team snapshot, every row checked against the record',
        );
      } else if (s.snapshot)
        logger.warn(
          { snapshot: s.snapshot.id, madeBy: s.snapshot.madeBy, reason: s.reason },
          'team sync: replaying the team record instead of using its snapshot',
        );
    }
    r ??= await (o.chain ? o.chain.starting(bulkStart(start)) : bulkStart(start));
    if (r) o.chain?.started(r.head, r.marks);
    return r ? { applied: r.applied, lastSeq: r.lastSeq, from } : null;
  }
  // While signatures taken from a snapshot wait for their re-check, nothing is reconciled: that check
  // reconciles once done (signature-check.ts).
  if (needsFullReconcile(db) && !signatureCheckProgress(db))
    await o.ledger.reconcileHistory(db, { now: o.clock.now() });
  return { applied: 0, lastSeq: null, from: 'replay' };
}
