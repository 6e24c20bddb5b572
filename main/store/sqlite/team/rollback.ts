// A desk as a witness of the team record, and its re-base when the record went back in time (store
// migration 20; team/sync/rollback.ts and witness.ts say what and why): the witness journal (seq, hash,
// and the event as the record held it when this desk could put it back), the rollback it found, the events
// it could not put back, what this desk holds as candidates for what the record lost, and the outbox rows
// that must survive a re-base. The re-base's own statements are rebase.ts, exported from here too.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { chainHeadOf, type ChainHead } from './chain-head.js';
import {
  bytes,
  int,
  intOrNull,
  intValue,
  maybe,
  num,
  numOrNull,
  oneOf,
  rowMapper,
  text,
  textOrNull,
} from '../../columns.js';

export {
  clearChainAlarms,
  deferForeignKeys,
  forgetAfter,
  keepRebasedHead,
  keptCollectionIds,
  parkOutbox,
  removeReferences,
  repointOutbox,
} from './rebase.js';
export * from './rollback-held.js';

// --- The witness journal ---------------------------------------------------------------------------

export interface WitnessRow {
  seq: number;
  event_key: string;
  hash: Buffer;
  /** The team event as pulled (JSON), when this desk could put it back; else null. */
  event: string | null;
}
const witnessRowOf = rowMapper<WitnessRow>((r) => ({
  seq: int(r, 'seq'),
  event_key: text(r, 'event_key'),
  hash: bytes(r, 'hash'),
  event: textOrNull(r, 'event'),
}));

/** Keeps what this desk applied (call inside the transaction that applied it); a seq seen again is replaced. */
export function keepWitnessed(db: WriteDb, rows: readonly WitnessRow[], now: number): void {
  const st = statement(
    db,
    `INSERT INTO team_witness (seq, event_key, hash, event, applied_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (seq) DO UPDATE SET event_key = excluded.event_key, hash = excluded.hash, event = excluded.event,
       applied_at = excluded.applied_at`,
  );
  for (const r of rows) st.run(r.seq, r.event_key, r.hash, r.event, now);
}

/** Up to `limit` points this desk witnessed below `belowSeq`, newest first. */
export function witnessedBelow(db: ReadDb, belowSeq: number, limit: number): ChainHead[] {
  return readStatement(db, 'SELECT seq, hash FROM team_witness WHERE seq < ? ORDER BY seq DESC LIMIT ?')
    .all(belowSeq, limit)
    .map(chainHeadOf);
}

/** What this desk witnessed at seqs after `afterSeq` and up to `uptoSeq`, in seq order. */
export function witnessedBetween(db: ReadDb, afterSeq: number, uptoSeq: number): WitnessRow[] {
  return readStatement(
    db,
    'SELECT seq, event_key, hash, event FROM team_witness WHERE seq > ? AND seq <= ? ORDER BY seq',
  )
    .all(afterSeq, uptoSeq)
    .map(witnessRowOf);
}

/** Forgets what was applied before `before` (ms since the epoch): the journal's horizon. */
export function pruneWitnessed(db: WriteDb, before: number): number {
  return statement(db, 'DELETE FROM team_witness WHERE applied_at < ?').run(before).changes;
}

// --- The rollback found, and the events nobody could put back ------------------------------------

export interface RollbackRow {
  found_at: number;
  common_seq: number;
  lost_from: number;
  lost_to: number;
  old_head_seq: number;
  old_head_hash: Buffer;
  phase: 'restoring' | 'rebased';
  restored: number;
  present: number;
  rebased_at: number | null;
  rebased_seq: number | null;
}
const PHASES: readonly RollbackRow['phase'][] = ['restoring', 'rebased'];
const rollbackRowOf = rowMapper<RollbackRow>((r) => ({
  found_at: num(r, 'found_at'),
  common_seq: int(r, 'common_seq'),
  lost_from: int(r, 'lost_from'),
  lost_to: int(r, 'lost_to'),
  old_head_seq: int(r, 'old_head_seq'),
  old_head_hash: bytes(r, 'old_head_hash'),
  phase: oneOf(r, 'phase', PHASES),
  restored: int(r, 'restored'),
  present: int(r, 'present'),
  rebased_at: numOrNull(r, 'rebased_at'),
  rebased_seq: intOrNull(r, 'rebased_seq'),
}));

export function keptRollback(db: ReadDb): RollbackRow | undefined {
  const r = readStatement(
    db,
    `SELECT found_at, common_seq, lost_from, lost_to, old_head_seq, old_head_hash, phase, restored, present,
            rebased_at, rebased_seq FROM team_rollback WHERE one_row = 1`,
  ).get();
  return maybe(r, rollbackRowOf);
}

/** Keeps the rollback found (replacing an earlier one, and the events listed with it). */
export function keepRollback(db: WriteDb, r: RollbackRow): void {
  statement(
    db,
    `INSERT INTO team_rollback (one_row, found_at, common_seq, lost_from, lost_to, old_head_seq, old_head_hash, phase,
         restored, present, rebased_at, rebased_seq)
       VALUES (1, @found_at, @common_seq, @lost_from, @lost_to, @old_head_seq, @old_head_hash, @phase, @restored, @present,
         @rebased_at, @rebased_seq)
     ON CONFLICT (one_row) DO UPDATE SET found_at = excluded.found_at, common_seq = excluded.common_seq,
       lost_from = excluded.lost_from, lost_to = excluded.lost_to, old_head_seq = excluded.old_head_seq,
       old_head_hash = excluded.old_head_hash, phase = excluded.phase, restored = excluded.restored,
       present = excluded.present, rebased_at = excluded.rebased_at, rebased_seq = excluded.rebased_seq`,
  ).run(r);
}

/** Counts what this desk put back (restored) and found back already (present, another witness's). */
export function countRestored(db: WriteDb, restored: number, present: number): void {
  statement(db, 'UPDATE team_rollback SET restored = restored + ?, present = present + ? WHERE one_row = 1').run(
    restored,
    present,
  );
}

export interface LostEventRow {
  event_key: string;
  seq: number | null;
  merchant_reference: string;
  source: string;
  kind: string;
  status: string | null;
  reason: string;
  /** The row this desk held (JSON). */
  event: string;
  found_at: number;
}
const lostEventRowOf = rowMapper<LostEventRow>((r) => ({
  event_key: text(r, 'event_key'),
  seq: intOrNull(r, 'seq'),
  merchant_reference: text(r, 'merchant_reference'),
  source: text(r, 'source'),
  kind: text(r, 'kind'),
  status: textOrNull(r, 'status'),
  reason: text(r, 'reason'),
  event: text(r, 'event'),
  found_at: num(r, 'found_at'),
}));

/** Lists events this desk held and could not put back (a key listed already keeps its first entry). */
export function keepLostEvents(db: WriteDb, rows: readonly LostEventRow[]): void {
  const st = statement(
    db,
    `INSERT INTO team_lost_events (event_key, seq, merchant_reference, source, kind, status, reason, event, found_at)
     VALUES (@event_key, @seq, @merchant_reference, @source, @kind, @status, @reason, @event, @found_at)
     ON CONFLICT (event_key) DO NOTHING`,
  );
  for (const r of rows) st.run(r);
}

/** The events listed, in seq order (unknown seqs last), at most `limit`, and how many there are. */
export function lostEvents(db: ReadDb, limit: number): { rows: LostEventRow[]; count: number } {
  const rows = readStatement(
    db,
    `SELECT event_key, seq, merchant_reference, source, kind, status, reason, event, found_at FROM team_lost_events
     ORDER BY seq IS NULL, seq, event_key LIMIT ?`,
  )
    .all(limit)
    .map(lostEventRowOf);
  const count = intValue(readStatement(db, 'SELECT count(*) FROM team_lost_events', 'pluck').get(), 'count(*)');
  return { rows, count };
}

/** Drops the entries whose event is in this desk's copy again (another witness put it back); how many. */
export function dropLostEventsHeld(db: WriteDb): number {
  return statement(
    db,
    `DELETE FROM team_lost_events WHERE event_key IN (
       SELECT l.event_key FROM team_lost_events l JOIN collection_events e ON e.dedupe_key = l.event_key)`,
  ).run().changes;
}
