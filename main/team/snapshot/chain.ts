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
import { canonicalContents, canonicalPage, chainExtent, chainMarks } from '../../store/sqlite/team/snapshot-chain.js';
import { pullPageRaw } from '../events.js';
import { GENESIS, type ChainHead } from '../chain.js';
import { SnapshotRejectedError } from './rejected.js';
import { checkSnapshotSchema } from './file-schema.js';
import { startsBlock } from './chain-event.js';
import { explain } from './chain-explain.js';
import { messageOf } from '../../errors.shared.js';

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

  // Where the walk is: the hash and seq of the last event linked, the id it expects next, the marks passed.
  const at: Walk = {
    prev: start ? start[2] : GENESIS,
    prevSeq: start ? start[1] : 0,
    expectId: (start ? start[0] : 0) + 1,
    marks: [],
  };
  const markOf = new Map<number, Buffer>(kept.map(([id, , hash]) => [id, hash]));
  const page = 50_000;
  for (let after = at.expectId - 1; after < end; after += page) {
    const upto = Math.min(end, after + page);
    let failed: string | undefined;
    for (let from = after; from < upto && failed === undefined; from += BLOB_PAGE) {
      const to = Math.min(upto, from + BLOB_PAGE);
      // The page as one blob; anything it does not say plainly (a value SQLite will not write, a
      // failure) is read again event by event from where it started, which says where and what.
      const { prev, prevSeq, expectId } = at;
      const marksBefore = at.marks.length;
      if (linkPage(snap, from, to, at, markOf)) continue;
      Object.assign(at, { prev, prevSeq, expectId });
      at.marks.length = marksBefore;
      failed = linkRows(snap, from, to, at);
    }
    if (failed !== undefined) return explain(o, at.expectId, failed);
    o.onProgress?.(at.prevSeq);
    if (o.stopped?.()) return null;
    // Lets the worker's messages through between pages.
    await new Promise<void>((r) => setImmediate(r));
  }
  const { marks, prev, prevSeq } = at;
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

/** Events read as one blob at a time (canonicalPage): small enough to stay in the CPU's caches. */
const BLOB_PAGE = 5_000;

interface Walk {
  prev: Buffer;
  prevSeq: number;
  expectId: number;
  marks: ChainHead[];
}

/**
 * Links one event onto the walk: `content` is the event's canonical content after 32 bytes of room for
 * the hash before it (sha256(prev || content) in one call). Returns what is wrong, or undefined.
 */
function link(at: Walk, id: number, seq: number, content: Buffer, mark: unknown): string | undefined {
  if (id !== at.expectId || !(seq > at.prevSeq))
    return `its event ${id} is not the one after seq ${at.prevSeq} in order`;
  at.prev.copy(content, 0);
  const hash = crypto.hash('sha256', content, 'buffer') as Buffer;
  if (startsBlock(at.prevSeq, seq)) {
    if (!Buffer.isBuffer(mark) || !mark.equals(hash))
      return `its events up to seq ${seq} do not hash to the mark it keeps there`;
    at.marks.push({ seq, hash });
  } else if (mark !== null && mark !== undefined) return `it keeps a mark at seq ${seq}, which starts no block`;
  at.prev = hash;
  at.prevSeq = seq;
  at.expectId++;
  return undefined;
}

/**
 * Events `from` + 1 .. `to` read as one blob (canonicalPage) and linked: true when every one of them
 * linked, false on anything else (the caller reads the page again event by event to say what).
 */
function linkPage(snap: Db, from: number, to: number, at: Walk, markOf: Map<number, Buffer>): boolean {
  let blob: Buffer | null;
  try {
    blob = canonicalPage(snap, from, to);
  } catch {
    return false;
  }
  if (blob === null) return false;
  let room = Buffer.allocUnsafe(4096);
  let pos = 0;
  while (pos < blob.length) {
    const afterId = blob.indexOf(32, pos);
    const afterSeq = afterId < 0 ? -1 : blob.indexOf(32, afterId + 1);
    const eol = afterSeq < 0 ? -1 : blob.indexOf(10, afterSeq + 1);
    if (eol < 0) return false;
    const length = eol - afterSeq - 1;
    if (room.length < 32 + length) room = Buffer.allocUnsafe(2 * (32 + length));
    blob.copy(room, 32, afterSeq + 1, eol);
    const id = digits(blob, pos, afterId);
    if (link(at, id, digits(blob, afterId + 1, afterSeq), room.subarray(0, 32 + length), markOf.get(id) ?? null))
      return false;
    pos = eol + 1;
  }
  return at.expectId === to + 1;
}

/** The number written in decimal digits at blob[from..to), NaN when it is anything else (or nothing). */
function digits(blob: Buffer, from: number, to: number): number {
  if (from >= to || to - from > 15) return NaN;
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = blob[i]! - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/** Events `from` + 1 .. `to` read and linked one by one (canonicalContents): what is wrong, or undefined. */
function linkRows(snap: Db, from: number, to: number, at: Walk): string | undefined {
  try {
    for (const [id, seq, content, mark] of canonicalContents(snap, from, to)) {
      const failed = link(at, id, seq, content, mark);
      if (failed !== undefined) return failed;
    }
  } catch (e) {
    // A BLOB where the event has text (SQLite will not write it as JSON): not the record's content.
    return `its event ${at.expectId} holds bytes where the record has text (${messageOf(e)})`;
  }
  return at.expectId === to + 1 ? undefined : `its event ${at.expectId} has no chain row`;
}
