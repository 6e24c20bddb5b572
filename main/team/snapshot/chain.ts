// A snapshot checked against the team's hash chain instead of against a second copy of the record
// (docs/team.md, Snapshots). The publisher keeps, beside the desk's rows, what those rows leave out of
// each team event and every MARK_EVERY seqs the event's hash (snapshot_chain, store/sqlite/team/
// snapshot-chain.ts). A desk then puts each event back together from the file alone (teamEventOf: the
// same columns SQLite's canonicalContents reads), hashes it onto the one before, checks each mark on the
// way and the last hash against the one team.events holds at the snapshot's seq: one row read from
// PostgreSQL instead of 3.6 million. SHA-256 binds each event to the one before it, so a file whose
// chain arrives at the record's head holds the record's events, every value of them, and no other;
// verify.ts then checks that every row the desk takes is what the replay makes of those events.
//
// When something does not match, the record is read after all, for that block only, to say where and
// what: the first event whose content differs and its first column that does, or, when the record's
// own row no longer hashes as it was recorded (its superuser rewrote it), that the record's chain
// does not match there.
import crypto from 'node:crypto';
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { rowsInRange } from '../../store/sqlite/team/snapshot-file.js';
import {
  canonicalContents,
  chainExtent,
  chainMarks,
  CHAIN_COLUMNS,
  type ChainRow,
} from '../../store/sqlite/team/snapshot-chain.js';
import type { EventSource, SignatureState } from '../../collections/model.js';
import { pullPageRaw, recordedHashes, type ChainedEvent, type TeamEvent } from '../events.js';
import { fromTeamEvent } from '../record.js';
import { ChainBrokenError, checkChain, eventHash, GENESIS, MARK_EVERY, type ChainHead } from '../chain.js';
import { SnapshotRejectedError } from './rejected.js';
import { checkSnapshotSchema } from './file-schema.js';

/** The collection_events columns a team event is put back together from, in this order. */
export const EVENT_COLUMNS = [
  'id',
  'collection_id',
  'merchant_reference',
  'internal_reference',
  'source',
  'kind',
  'status',
  'received_at',
  'signature',
  'amount_minor',
  'currency',
  'dedupe_key',
  'payload',
  'note',
  'actor',
] as const;
const E = Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, i])) as Record<(typeof EVENT_COLUMNS)[number], number>;
const S = Object.fromEntries(CHAIN_COLUMNS.map((c, i) => [c, i])) as Record<(typeof CHAIN_COLUMNS)[number], number>;

/** Whether an event starts a new block of MARK_EVERY seqs after `prevSeq` (team/chain.ts checkChain's rule). */
export function startsBlock(prevSeq: number, seq: number): boolean {
  return Math.floor(seq / MARK_EVERY) !== Math.floor(prevSeq / MARK_EVERY);
}

/**
 * What the publisher keeps of an event beside its collection_events row `id` (stored from it by the
 * bulk copy): see ChainRow. `mark`: its hash when it starts a block.
 */
export function chainRowOf(e: ChainedEvent, id: number, isMark: boolean): ChainRow {
  // The row keeps these two as fromTeamEvent gives them (it does not depend on the signature's verdict).
  const row = fromTeamEvent(e);
  return {
    id,
    seq: e.seq,
    kind: e.kind,
    signature: e.signature,
    note: e.note,
    paymentUrl: e.paymentUrl,
    statusMessage: e.statusMessage,
    occurredAt: e.occurredAt === row.receivedAt ? null : e.occurredAt,
    recordedAt: e.recordedAt,
    evidence: e.evidence,
    payload: row.payload === null ? e.payload : null,
    mark: isMark ? e.hash : null,
  };
}

/**
 * The team event a snapshot's collection_events row and snapshot_chain row say, put together as
 * SQLite's canonicalContents does (store/sqlite/team/snapshot-chain.ts): the same column for each field.
 * Where the two would disagree (a payload in both rows) it is undefined: such a file's content never
 * hashes as the record's. The values are taken as they are: once the chain has matched, each has the type
 * the team column has (canonicalContents writes any other as a value no record holds).
 */
export function teamEventOf(d: readonly unknown[], s: readonly unknown[]): TeamEvent | undefined {
  const rowPayload = d[E.payload] as string | null;
  const keptPayload = s[S.payload] as string | null;
  if (rowPayload !== null && keptPayload !== null) return undefined;
  return {
    seq: s[S.seq] as number,
    eventKey: d[E.dedupe_key] as string,
    merchantReference: d[E.merchant_reference] as string,
    internalReference: d[E.internal_reference] as string | null,
    source: d[E.source] as EventSource,
    kind: s[S.kind] as string,
    status: d[E.status] as string | null,
    amountMinor: d[E.amount_minor] as number | null,
    currency: d[E.currency] as string | null,
    signature: s[S.signature] as SignatureState,
    payload: keptPayload ?? rowPayload,
    note: s[S.note] as string | null,
    paymentUrl: s[S.payment_url] as string | null,
    statusMessage: s[S.status_message] as string | null,
    occurredAt: (s[S.occurred_at] ?? d[E.received_at]) as number,
    recordedAt: s[S.recorded_at] as number,
    actor: d[E.actor] as string,
    evidence: s[S.evidence] as string | null,
  };
}

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

/**
 * The file's chain does not arrive where the record's does, found at event `failedAt`: reads the record
 * from the last mark before it that the record holds too and says what differs first. Always rejects.
 */
async function explain(o: ChainCheckOptions, failedAt: number, fallback: string): Promise<never> {
  // The marks the file keeps before the failure, and the first of them the record does not hold: the
  // file left the record's chain before that one (a forger may have recomputed every hash after).
  const kept = chainMarks(o.snap).filter(([id, , hash]) => id < failedAt && Buffer.isBuffer(hash));
  const recordedAt = await recordedHashes(
    o.pool,
    kept.map(([, seq]) => seq),
  );
  let from = { id: 0, seq: 0, hash: GENESIS };
  for (const [id, seq, hash] of kept) {
    if (!recordedAt.get(seq)?.equals(hash)) break;
    from = { id, seq, hash };
  }
  // Each mark is MARK_EVERY seqs after the one before; a little more covers a file whose seqs are off.
  const want = Math.min(o.events - from.id, 2 * MARK_EVERY + 1);
  const recorded = want > 0 ? (await pullPageRaw(o.pool, from.seq, want, o.uptoSeq)).events : [];
  // The record's own rows first: one rewritten after it was written (its superuser's doing) is why.
  try {
    checkChain({ seq: from.seq, hash: from.hash }, recorded);
  } catch (e) {
    if (e instanceof ChainBrokenError)
      throw new SnapshotRejectedError(`the record's hash chain does not match at seq ${e.seq}: ${e.reason}`);
    throw e;
  }
  const d = rowsInRange(o.snap, 'collection_events', EVENT_COLUMNS, from.id, from.id + want);
  const s = rowsInRange(o.snap, 'snapshot_chain', CHAIN_COLUMNS, from.id, from.id + want);
  for (let i = 0; i < recorded.length; i++) {
    const diff = firstDifference(recorded[i]!, from.id + i + 1, d[i], s[i]);
    if (diff) throw new SnapshotRejectedError(diff);
  }
  throw new SnapshotRejectedError(fallback);
}

/** A value for a message: bytes said as bytes, long text cut. */
export function shown(v: unknown): string {
  if (Buffer.isBuffer(v)) return `${v.length} bytes (not text)`;
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

/**
 * The first column of event `id` in the file that is not what the record's event `e` makes of it: in
 * its collection_events row (the columns it keeps as the event has them), then in its snapshot_chain row.
 * Null when both rows are the event's.
 */
export function firstDifference(
  e: ChainedEvent,
  id: number,
  d: readonly unknown[] | undefined,
  s: readonly unknown[] | undefined,
): string | null {
  const where = `seq ${e.seq}`;
  if (!d) return `it has no collection_events row ${id} (${where})`;
  if (!s) return `it has no snapshot_chain row ${id} (${where})`;
  const row = fromTeamEvent(e);
  const kept = chainRowOf(e, id, false);
  const rowWants: [keyof typeof E, unknown][] = [
    ['id', id],
    ['merchant_reference', e.merchantReference],
    ['internal_reference', e.internalReference],
    ['source', e.source],
    ['status', e.status],
    ['received_at', row.receivedAt],
    ['amount_minor', e.amountMinor],
    ['currency', e.currency],
    ['dedupe_key', e.eventKey],
    ['payload', row.payload],
    ['actor', e.actor],
  ];
  for (const [col, want] of rowWants)
    if (d[E[col]] !== want)
      return `collection_events row ${id} (${where}): ${col} is ${shown(d[E[col]])}, the record says ${shown(want)}`;
  const keptWants: [keyof typeof S, unknown][] = [
    ['seq', kept.seq],
    ['kind', kept.kind],
    ['signature', kept.signature],
    ['note', kept.note],
    ['payment_url', kept.paymentUrl],
    ['status_message', kept.statusMessage],
    ['occurred_at', kept.occurredAt],
    ['recorded_at', kept.recordedAt],
    ['evidence', kept.evidence],
    ['payload', kept.payload],
  ];
  for (const [col, want] of keptWants)
    if (s[S[col]] !== want)
      return `snapshot_chain row ${id} (${where}): ${col} is ${shown(s[S[col]])}, the record says ${shown(want)}`;
  return null;
}

/**
 * Whether the record's own row for `seq` still hashes as it was recorded (its content onto its prev_hash):
 * null when it does, else why not, as the record's chain check says it.
 */
export async function recordRowBroken(pool: pg.Pool, seq: number): Promise<string | null> {
  const e = (await pullPageRaw(pool, Math.max(0, seq - 1), 1, seq)).events[0];
  if (!e || e.seq !== seq) return null;
  if (eventHash(e.prevHash, e).equals(e.hash)) return null;
  return `the record's hash chain does not match at seq ${seq}: its content is not what was recorded (rewritten after it was written)`;
}
