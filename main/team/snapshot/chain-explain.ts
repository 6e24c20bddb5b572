// What a snapshot's chain check (chain.ts) says when the file's chain does not arrive where the record's
// does: the record is read after all, for that block only, to name the first event whose content differs
// and its first column that does, or, when the record's own row no longer hashes as it was recorded (its
// superuser rewrote it), that the record's chain does not match there. The row check (verify.ts) asks the
// second question of the row it refuses.
import type pg from 'pg';
import { rowsInRange } from '../../store/sqlite/team/snapshot-file.js';
import { chainMarks, CHAIN_COLUMNS } from '../../store/sqlite/team/snapshot-chain.js';
import { pullPageRaw, recordedHashes, type ChainedEvent } from '../events.js';
import { fromTeamEvent } from '../record.js';
import { ChainBrokenError, checkChain, eventHash, GENESIS, MARK_EVERY } from '../chain.js';
import { SnapshotRejectedError } from './rejected.js';
import { chainRowOf, E, EVENT_COLUMNS, S } from './chain-event.js';
import type { Db } from '../../store/sqlite/connection.js';

/**
 * The file's chain does not arrive where the record's does, found at event `failedAt`: reads the record
 * from the last mark before it that the record holds too and says what differs first. Always rejects.
 */
export async function explain(
  o: { pool: pg.Pool; snap: Db; uptoSeq: number; events: number },
  failedAt: number,
  fallback: string,
): Promise<never> {
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
