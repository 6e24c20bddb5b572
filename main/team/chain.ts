// The events' hash chain as a desk recomputes it (team migration 10 says why and how the database
// makes it). The canonical content is defined once here and once in SQL (team.event_canonical): a
// JSON array of each column's text or null, in CANONICAL_COLUMNS' order, trailing nulls dropped, and
// the hash is sha256(prev_hash || canonical as UTF-8). test/team/chain.test.ts checks both sides give
// the same bytes for awkward values.
import crypto from 'node:crypto';
import { TeamError } from './errors.js';
import type { ChainedEvent, TeamEvent } from './events.js';
import type { ChainHead } from '../store/sqlite/team/chain-head.js';
export type { ChainedEvent } from './events.js';

/** The first event's prev_hash: 32 zero bytes (team.chain_genesis()). */
export const GENESIS: Buffer = Buffer.alloc(32);

/** A number's text as PostgreSQL's ::text gives an integer's, null as null. */
function decimal(n: number | null | undefined): string | null {
  return n === null || n === undefined ? null : String(n);
}

/**
 * The canonical content's columns, in order, and each one's text as the desk reads it. The one list on
 * this side: a column appended to team.event_canonical is appended here, at the end.
 */
export const CANONICAL_COLUMNS: readonly (readonly [column: string, text: (e: TeamEvent) => string | null])[] = [
  ['seq', (e) => String(e.seq)],
  ['event_key', (e) => e.eventKey],
  ['merchant_reference', (e) => e.merchantReference],
  ['internal_reference', (e) => e.internalReference],
  ['source', (e) => e.source],
  ['kind', (e) => e.kind],
  ['status', (e) => e.status],
  ['amount_minor', (e) => decimal(e.amountMinor)],
  ['currency', (e) => e.currency],
  ['signature', (e) => e.signature],
  ['payload', (e) => e.payload],
  ['note', (e) => e.note],
  ['payment_url', (e) => e.paymentUrl],
  ['status_message', (e) => e.statusMessage],
  ['occurred_at', (e) => decimal(e.occurredAt)],
  ['recorded_at', (e) => decimal(e.recordedAt)],
  ['actor', (e) => e.actor],
  // Team migration 11: a signed event's evidence (team/evidence.ts). Null on every older row.
  ['evidence', (e) => e.evidence],
];

/** The canonical text of an event: byte for byte what team.event_canonical gives for its row. */
export function canonicalEvent(e: TeamEvent): string {
  // One string built as it goes (a new desk hashes millions of events: no array per event); a run of
  // nulls is written only once a value follows it, so trailing nulls are dropped.
  let out = '[';
  let nulls = 0;
  let first = true;
  for (const [, text] of CANONICAL_COLUMNS) {
    const v = text(e);
    if (v === null) {
      nulls++;
      continue;
    }
    for (; nulls > 0; nulls--) {
      out += first ? 'null' : ',null';
      first = false;
    }
    out += first ? JSON.stringify(v) : `,${JSON.stringify(v)}`;
    first = false;
  }
  return `${out}]`;
}

/**
 * prev || canonical text is written into this buffer, reused, and hashed at once (crypto.hash): a new
 * desk hashes millions of events, and a Hash object with two updates and a digest per event cost a third
 * more (3.7 against 5.5 µs an event, measured on a busy machine, 26 Nov). Larger texts than it holds
 * (a rare long payload) take the streaming hash rather than keeping a large buffer.
 */
const scratch = Buffer.allocUnsafe(256 * 1024);

/** sha256(prev || canonical text as UTF-8). */
export function eventHash(prev: Buffer, e: TeamEvent): Buffer {
  const text = canonicalEvent(e);
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  if (prev.length + text.length * 3 > scratch.length)
    return crypto.createHash('sha256').update(prev).update(text, 'utf8').digest();
  prev.copy(scratch, 0);
  const n = scratch.write(text, prev.length, 'utf8');
  return crypto.hash('sha256', scratch.subarray(0, prev.length + n), 'buffer');
}

/** The last event whose chain a desk has checked: its seq (0 before any) and hash (GENESIS before any). */
export type { ChainHead };

export const START: ChainHead = { seq: 0, hash: GENESIS };

/** The team record does not match its chain (or what this desk verified before), from `seq` on. */
export class ChainBrokenError extends TeamError {
  override name = 'ChainBrokenError';
  constructor(
    /** The first seq that does not match. */
    readonly seq: number,
    /** Why, in words: "its content is not what was hashed", "an event before it is missing"... */
    readonly reason: string,
  ) {
    super(`the team record does not match its hash chain at seq ${seq}: ${reason}`);
  }
}

/**
 * The record no longer holds, at a seq, what this desk verified there: its head or a mark changed or is
 * gone, or the next event does not follow the head. Unlike an event whose own content or link is wrong,
 * that is also what a record that went back in time looks like (an asynchronous failover, a restore from
 * backup: team/sync/rollback.ts tells the two apart before any alarm is raised).
 */
export class ChainMovedError extends ChainBrokenError {}

/**
 * A desk keeps, besides its head, the hash of the first event of every block of MARK_EVERY seqs it
 * verified (a few thousand for a year): when the superuser rewrote a row and recomputed every hash after
 * it, the first mark that no longer matches says where, within a block, instead of only "at or before
 * the head".
 */
export const MARK_EVERY = 1000;

/**
 * Checks `events` (seq order, the ones right after `head`) against the chain: each links to the one
 * before and its content gives its hash. Returns the new head; throws ChainBrokenError at the first
 * event that does not match. `onMark` is told each event that starts a new block of MARK_EVERY seqs.
 */
export function checkChain(
  head: ChainHead,
  events: readonly ChainedEvent[],
  onMark?: (mark: ChainHead) => void,
): ChainHead {
  let { seq, hash } = head;
  for (const e of events) {
    if (e.seq <= seq) throw new ChainBrokenError(e.seq, `it comes after seq ${seq} in the record (out of order)`);
    if (!e.prevHash.equals(hash)) {
      if (seq === head.seq && head.seq > 0)
        throw new ChainMovedError(
          e.seq,
          `it does not follow seq ${seq} as this desk verified it (a row was changed, removed or inserted at or before it)`,
        );
      throw new ChainBrokenError(e.seq, `it does not follow seq ${seq} (an event between them was removed or changed)`);
    }
    if (!eventHash(hash, e).equals(e.hash))
      throw new ChainBrokenError(e.seq, 'its content is not what was recorded (rewritten after it was written)');
    if (onMark && Math.floor(e.seq / MARK_EVERY) !== Math.floor(seq / MARK_EVERY)) onMark({ seq: e.seq, hash: e.hash });
    seq = e.seq;
    hash = e.hash;
  }
  return { seq, hash };
}
