// A desk as a witness of the team record, and its re-base when the record went back in time (store
// migration 20; team/sync/rollback.ts and witness.ts say what and why): the witness journal (seq, hash,
// and the event as the record held it when this desk could put it back), the rollback it found, the events
// it could not put back, what this desk holds as candidates for what the record lost, and the outbox rows
// that must survive a re-base. The re-base's own statements are rebase.ts, exported from here too.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { collectionEventRowOf, eventColumnsOf, type CollectionEventRow } from '../ledger/collection-events.js';
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
  texts,
} from '../../columns.js';

export {
  clearChainAlarms,
  deferForeignKeys,
  forgetAfter,
  keepRebasedHead,
  removeReferences,
  repointOutbox,
} from './rebase.js';

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

// --- What a desk holds, as candidates for what the record lost --------------------------------------

/** A local event with the columns a witness needs (its collection's intent columns for an intent). */
export type HeldEventRow = CollectionEventRow;

const heldKeyOf = rowMapper((r) => ({
  id: int(r, 'id'),
  dedupe_key: text(r, 'dedupe_key'),
  merchant_reference: text(r, 'merchant_reference'),
}));

/** The local id of the event with this key, if this desk holds it. */
export function localIdOfKey(db: ReadDb, key: string): number | undefined {
  const id = readStatement(db, 'SELECT id FROM collection_events WHERE dedupe_key = ?', 'pluck').get(key);
  return id === undefined ? undefined : intValue(id, 'id');
}

/** The keys of local events after id `afterId`, `limit` at a time, in id order (the rows are read when needed). */
export function heldKeysAfter(
  db: ReadDb,
  afterId: number,
  limit: number,
): { id: number; dedupe_key: string; merchant_reference: string }[] {
  return readStatement(
    db,
    'SELECT id, dedupe_key, merchant_reference FROM collection_events WHERE id > ? AND dedupe_key IS NOT NULL ORDER BY id LIMIT ?',
  )
    .all(afterId, limit)
    .map(heldKeyOf);
}

/** Local events written by `actor` at or after `since` (this desk's own: its login's). */
export function heldEventsOf(db: ReadDb, actor: string, since: number): HeldEventRow[] {
  return readStatement(
    db,
    'SELECT * FROM collection_events WHERE actor = ? AND received_at >= ? AND dedupe_key IS NOT NULL ORDER BY id',
  )
    .all(actor, since)
    .map(collectionEventRowOf);
}

/** The local events of these keys. */
export function heldEventsByKeys(db: ReadDb, keys: readonly string[]): HeldEventRow[] {
  const out: HeldEventRow[] = [];
  const st = readStatement(
    db,
    'SELECT * FROM collection_events WHERE dedupe_key IN (SELECT value FROM json_each(?)) ORDER BY id',
  );
  for (let i = 0; i < keys.length; i += 500)
    out.push(...st.all(JSON.stringify(keys.slice(i, i + 500))).map(collectionEventRowOf));
  return out;
}

/** An outbox row with its event: what a desk sends (or sent) the team of its own. */
export interface OwnOutboxRow extends Omit<CollectionEventRow, 'id' | 'kind' | 'dedupe_key'> {
  outbox_id: number;
  event_id: number;
  event_key: string;
  kind: string;
  payment_url: string | null;
  status_message: string | null;
  evidence: string | null;
  state: 'pending' | 'sent' | 'refused';
  reason: string | null;
  attempts: number;
  created_at: number;
  updated_at: number;
}

const OUTBOX_STATES: readonly OwnOutboxRow['state'][] = ['pending', 'sent', 'refused'];
const ownOutboxRowOf = rowMapper<OwnOutboxRow>((r) => ({
  ...eventColumnsOf(r),
  outbox_id: int(r, 'outbox_id'),
  event_id: int(r, 'event_id'),
  event_key: text(r, 'event_key'),
  kind: text(r, 'kind'),
  payment_url: textOrNull(r, 'payment_url'),
  status_message: textOrNull(r, 'status_message'),
  evidence: textOrNull(r, 'evidence'),
  state: oneOf(r, 'state', OUTBOX_STATES),
  reason: textOrNull(r, 'reason'),
  attempts: int(r, 'attempts'),
  created_at: num(r, 'created_at'),
  updated_at: num(r, 'updated_at'),
  collection_id: intOrNull(r, 'collection_id'),
  merchant_reference: text(r, 'merchant_reference'),
}));

const OUTBOX_ROWS = `SELECT o.id AS outbox_id, o.event_id, o.event_key, o.kind, o.payment_url, o.status_message, o.evidence,
         o.state, o.reason, o.attempts, o.created_at, o.updated_at,
         e.collection_id, e.merchant_reference, e.internal_reference, e.source, e.status, e.received_at, e.signature,
         e.amount_minor, e.currency, e.payload, e.note, e.actor
       FROM team_outbox o JOIN collection_events e ON e.id = o.event_id`;

/** Outbox rows the team database acknowledged at or after `since` (sent; kept until then as a witness's). */
export function sentOutboxSince(db: ReadDb, since: number): OwnOutboxRow[] {
  return readStatement(db, `${OUTBOX_ROWS} WHERE o.state = 'sent' AND o.updated_at >= ? ORDER BY o.id`)
    .all(since)
    .map(ownOutboxRowOf);
}

/** The keys of outbox rows not (or never to be) in the team record: pending or refused. */
export function unsentOutboxKeys(db: ReadDb): Set<string> {
  return new Set(
    texts(
      readStatement(db, "SELECT event_key FROM team_outbox WHERE state IN ('pending', 'refused')", 'pluck').all(),
      'event_key',
    ),
  );
}

/** The outbox rows still to send or refused, of events of these references (they must outlive the re-base). */
export function unsentOutboxOf(db: ReadDb, refs: readonly string[]): OwnOutboxRow[] {
  const out: OwnOutboxRow[] = [];
  const st = readStatement(
    db,
    `${OUTBOX_ROWS} WHERE o.state IN ('pending', 'refused') AND e.merchant_reference IN (SELECT value FROM json_each(?))
     ORDER BY o.id`,
  );
  for (let i = 0; i < refs.length; i += 500)
    out.push(...st.all(JSON.stringify(refs.slice(i, i + 500))).map(ownOutboxRowOf));
  return out;
}

/** A collection's intent columns as stored (the order of the SELECT, which the event's payload keeps). */
export type StoredIntentColumns = {
  merchant_reference: string;
  created_at: number;
  amount_minor: number;
  currency: string;
  description: string;
  customer_name: string | null;
  customer_email: string | null;
  charge_customer: number;
  allow_final_status_change: number;
  operator: string;
  provider_code: string | null;
  redirect_url: string;
  card_brand: string | null;
  card_last4: string | null;
};
const storedIntentColumnsOf = rowMapper<StoredIntentColumns>((r) => ({
  merchant_reference: text(r, 'merchant_reference'),
  created_at: num(r, 'created_at'),
  amount_minor: int(r, 'amount_minor'),
  currency: text(r, 'currency'),
  description: text(r, 'description'),
  customer_name: textOrNull(r, 'customer_name'),
  customer_email: textOrNull(r, 'customer_email'),
  charge_customer: int(r, 'charge_customer'),
  allow_final_status_change: int(r, 'allow_final_status_change'),
  operator: text(r, 'operator'),
  provider_code: textOrNull(r, 'provider_code'),
  redirect_url: text(r, 'redirect_url'),
  card_brand: textOrNull(r, 'card_brand'),
  card_last4: textOrNull(r, 'card_last4'),
}));

/** The intent columns of a collection, for putting back this desk's own intent. */
export function intentColumnsOf(db: ReadDb, reference: string): StoredIntentColumns | undefined {
  const r = readStatement(
    db,
    `SELECT merchant_reference, created_at, amount_minor, currency, description, customer_name, customer_email,
            charge_customer, allow_final_status_change, operator, provider_code, redirect_url, card_brand, card_last4
     FROM collections WHERE merchant_reference = ?`,
  ).get(reference);
  return maybe(r, storedIntentColumnsOf);
}
