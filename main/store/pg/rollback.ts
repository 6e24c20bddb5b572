// What a desk and serve ask of team.events when the record may have gone back in time (an asynchronous
// failover, a restore from backup: team/sync/rollback.ts, serve/record-watch.ts), and the restoration
// itself (team.restore_events, team migrations 15 and 20). Values come back as pg gives them (int8 as text).
import type { Queryable } from './connection.js';
import type { RawEventRow } from './events.js';
import { bytes, onlyRow, oneOf, rowMapper, text, textOrNull } from '../columns.js';

/** The record's events at some seqs: what a desk compares with the points of the chain it verified. */
export interface ChainPointRow {
  seq: string;
  hash: Buffer;
  event_key: string;
  /** Its evidence: a restoration carries team.restore_events' mark in it (the team module reads it). */
  evidence: string | null;
}

const chainPointRowOf = rowMapper<ChainPointRow>((r) => ({
  seq: text(r, 'seq'),
  hash: bytes(r, 'hash'),
  event_key: text(r, 'event_key'),
  evidence: textOrNull(r, 'evidence'),
}));
const keySeqOf = rowMapper((r) => ({ event_key: text(r, 'event_key'), seq: text(r, 'seq') }));
const pollSeqsOf = rowMapper((r) => ({
  balance_snapshots: textOrNull(r, 'balance_snapshots'),
  payment_option_lists: textOrNull(r, 'payment_option_lists'),
}));

/** The record's events at `seqs` (those it has), in seq order. */
export async function selectChainPoints(db: Queryable, seqs: readonly number[]): Promise<ChainPointRow[]> {
  const r = await db.query(
    'SELECT seq, hash, event_key, evidence FROM team.events WHERE seq = ANY($1::bigint[]) ORDER BY seq',
    [seqs],
  );
  return r.rows.map(chainPointRowOf);
}

/** The seq of each of `keys` the record holds (a key it does not hold is left out). */
export async function selectSeqsOfKeys(
  db: Queryable,
  keys: readonly string[],
): Promise<{ event_key: string; seq: string }[]> {
  const r = await db.query('SELECT event_key, seq FROM team.events WHERE event_key = ANY($1::text[])', [keys]);
  return r.rows.map(keySeqOf);
}

/** Every value as PostgreSQL's text, as events.ts selectEventsAfterRaw reads them. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/**
 * Every event of the merchant references `refs` up to `uptoSeq`, in seq order, in selectEventsAfterRaw's
 * columns: what a desk folds those collections again from when it re-bases on the record.
 */
export async function selectEventsOfReferences(
  db: Queryable,
  refs: readonly string[],
  uptoSeq: number,
): Promise<RawEventRow[]> {
  const r = await db.query<RawEventRow>({
    text: `SELECT seq, event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
                  signature, payload, note, payment_url, status_message,
                  floor(extract(epoch FROM occurred_at) * 1000)::bigint, floor(extract(epoch FROM recorded_at) * 1000)::bigint, actor,
                  prev_hash, hash, evidence
           FROM team.events WHERE merchant_reference = ANY($1::text[]) AND seq <= $2 ORDER BY seq`,
    values: [refs, uptoSeq],
    rowMode: 'array',
    types: RAW_TEXT,
  });
  return r.rows;
}

/** The newest seq of the two poll streams (null when a stream has none). */
export async function selectNewestPollSeqs(
  db: Queryable,
): Promise<{ balance_snapshots: string | null; payment_option_lists: string | null }> {
  const r = await db.query(
    `SELECT (SELECT max(seq) FROM team.balance_snapshots) AS balance_snapshots,
            (SELECT max(seq) FROM team.payment_option_lists) AS payment_option_lists`,
  );
  return onlyRow(r.rows, pollSeqsOf);
}

/** An event as a witness puts it back: the columns a writer sends, and what the witness says it was. */
export interface RestoreRow {
  event_key: string;
  merchant_reference: string;
  internal_reference: string | null;
  source: string;
  kind: string;
  status: string | null;
  /** int8 as text. */
  amount_minor: string | null;
  currency: string | null;
  signature: string;
  payload: string | null;
  note: string | null;
  payment_url: string | null;
  status_message: string | null;
  /** ISO 8601. */
  occurred_at: string;
  evidence: string | null;
  /** The seq it had in the record that lost it, when the witness knows it. */
  lost_seq: number | null;
  /** When that record first stored it (ms since the epoch), when known. */
  lost_recorded_at: number | null;
  /** Who wrote it there, when known. */
  lost_actor: string | null;
  /**
   * An intent's guard, put back with it (team migration 20): its card fingerprint as 64 hex digits, when the
   * database created the intent (ms) and whether it was a confirmed repeat. Only the desk that charged has it.
   */
  guard?: { fingerprint: string; charged_at: number; confirmed_repeat: boolean };
}

export interface RestoreOutcomeRow {
  event_key: string;
  seq: string | null;
  outcome: 'restored' | 'present' | 'refused';
  reason: string | null;
}

const OUTCOMES: readonly RestoreOutcomeRow['outcome'][] = ['restored', 'present', 'refused'];
const restoreOutcomeRowOf = rowMapper<RestoreOutcomeRow>((r) => ({
  event_key: text(r, 'event_key'),
  seq: textOrNull(r, 'seq'),
  outcome: oneOf(r, 'outcome', OUTCOMES),
  reason: textOrNull(r, 'reason'),
}));

/** team.restore_events: each row restored (with its new seq), present already, or refused (why). */
export async function restoreEvents(db: Queryable, rows: readonly RestoreRow[]): Promise<RestoreOutcomeRow[]> {
  const r = await db.query('SELECT event_key, seq, outcome, reason FROM team.restore_events($1::jsonb)', [
    JSON.stringify(rows),
  ]);
  return r.rows.map(restoreOutcomeRowOf);
}
