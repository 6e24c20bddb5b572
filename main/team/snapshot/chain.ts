// A snapshot checked against the team's hash chain instead of against a second copy of the record
// (docs/team.md, Snapshots). The publisher keeps, beside the desk's rows, what those rows leave out of
// each team event and every MARK_EVERY seqs the event's hash (snapshot_chain, store/sqlite/team/
// snapshot-chain.ts). A desk then puts each event back together from the file alone (chain-event.ts
// teamEventOf: the same columns SQLite's canonicalContents reads), hashes it onto the one before, checks each mark on the
// way and the last hash against the one team.events holds at the snapshot's seq: one row read from
// PostgreSQL instead of 3.6 million. SHA-256 binds each event to the one before it, so a file whose
// chain arrives at the record's head holds the record's events, every value of them, and no other;
// verify.ts then checks that every row the desk takes is what the replay makes of those events.
//
// When something does not match, the record is read after all, for that block only, to say where and
// what (chain-explain.ts). The event put back together, and the row the publisher keeps beside it, are
// chain-event.ts.
import crypto from 'node:crypto';
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { canonicalContents, chainExtent, chainMarks } from '../../store/sqlite/team/snapshot-chain.js';
import { pullPageRaw } from '../events.js';
import { GENESIS, type ChainHead } from '../chain.js';
import { SnapshotRejectedError } from './rejected.js';
import { checkSnapshotSchema } from './file-schema.js';
import { startsBlock } from './chain-event.js';
import { explain } from './chain-explain.js';

export interface ChainCheckOptions {
  pool: pg.Pool;
  /** The snapshot file, opened read-only. */
  snap: Db;
  uptoSeq: number;
  /** The events the file must hold: ids 1..events. */
  events: number;
  /**
   * Which of `of` parts of the chain to check (default the one whole): the file's events are cut at
   * marks, each part hashed from the mark it starts after (the one before it checks that mark), so the
   * parts can be checked at once, each on a thread of its own. The last part checks the head.
   */
  part?: number;
  of?: number;
  stopped?: () => boolean;
  onProgress?: (checkedSeq: number) => void;
}

export interface ChainPart {
  /** The marks passed in this part, in order. */
  marks: ChainHead[];
  /** The record's head at the snapshot's seq: from the last part only. */
  head: ChainHead | null;
}

/**
 * Checks events of the file against the chain, from the file alone but for the head: resolves with the
 * marks passed (and, from the last part, the head: the record's, at the snapshot's seq); rejects with
 * SnapshotRejectedError saying where and what differs; null when stopped.
 */
export async function checkSnapshotChain(o: ChainCheckOptions): Promise<ChainPart | null> {
  const { snap } = o;
  checkSnapshotSchema(snap);
  // Its ids run 1..events (each one checked in order below, so none is missing between them).
  const extent = chainExtent(snap);
  if (o.events > 0 ? extent.first !== 1 || extent.last !== o.events : extent.last !== null)
    throw new SnapshotRejectedError(
      `it keeps the chain of events ${extent.first ?? '-'} to ${extent.last ?? '-'}, not of its ${o.events}`,
    );
  // The parts: cut at the marks nearest to each 1/of of the events (every part computes the same cuts).
  const of = Math.max(1, o.of ?? 1);
  const part = o.part ?? 0;
  const kept = chainMarks(snap);
  const cuts: [number, number, Buffer][] = [];
  for (let k = 1; k < of; k++) {
    const target = (o.events * k) / of;
    let best: [number, number, Buffer] | undefined;
    for (const m of kept) if (!best || Math.abs(m[0] - target) < Math.abs(best[0] - target)) best = m;
    if (best && Buffer.isBuffer(best[2]) && (!cuts.length || best[0] > cuts[cuts.length - 1]![0])) cuts.push(best);
  }
  const last = part >= cuts.length;
  if (part > cuts.length) return { marks: [], head: null }; // fewer cuts than parts: nothing left here
  const start = part === 0 ? undefined : cuts[part - 1]!;
  const end = last ? o.events : cuts[part]![0];

  let prev = start ? start[2] : GENESIS;
  let prevSeq = start ? start[1] : 0;
  let expectId = (start ? start[0] : 0) + 1;
  const marks: ChainHead[] = [];
  const page = 50_000;
  for (let after = expectId - 1; after < end; after += page) {
    const upto = Math.min(end, after + page);
    let failed: string | undefined;
    try {
      for (const [id, seq, content, mark] of canonicalContents(snap, after, upto)) {
        if (id !== expectId || !(seq > prevSeq)) {
          failed = `its event ${id} is not the one after seq ${prevSeq} in order`;
          break;
        }
        // The content comes with room for the hash before it: sha256(prev || content) in one call.
        prev.copy(content, 0);
        const hash = crypto.hash('sha256', content, 'buffer') as Buffer;
        if (startsBlock(prevSeq, seq)) {
          if (!Buffer.isBuffer(mark) || !mark.equals(hash)) {
            failed = `its events up to seq ${seq} do not hash to the mark it keeps there`;
            break;
          }
          marks.push({ seq, hash });
        } else if (mark !== null) {
          failed = `it keeps a mark at seq ${seq}, which starts no block`;
          break;
        }
        prev = hash;
        prevSeq = seq;
        expectId++;
      }
    } catch (e) {
      // A BLOB where the event has text (SQLite will not write it as JSON): not the record's content.
      failed = `its event ${expectId} holds bytes where the record has text (${(e as Error).message})`;
    }
    if (failed === undefined && expectId !== upto + 1) failed = `its event ${expectId} has no chain row`;
    if (failed !== undefined) return explain(o, expectId, failed);
    o.onProgress?.(prevSeq);
    if (o.stopped?.()) return null;
    // Lets the worker's messages through between pages.
    await new Promise<void>((r) => setImmediate(r));
  }
  if (!last) return { marks, head: null };
  // The record's own head at the snapshot's seq: the one thing read from PostgreSQL when all is well.
  const recorded = (await pullPageRaw(o.pool, Math.max(0, o.uptoSeq - 1), 1, o.uptoSeq)).events[0];
  if (!recorded || recorded.seq !== o.uptoSeq)
    throw new SnapshotRejectedError(`the record has no event at seq ${o.uptoSeq}, where it says it ends`);
  if (prevSeq !== o.uptoSeq || !prev.equals(recorded.hash))
    return explain(
      o,
      o.events + 1,
      `its events end at seq ${prevSeq}, not at the record's seq ${o.uptoSeq} with its hash`,
    );
  return { marks, head: { seq: prevSeq, hash: prev } };
}
