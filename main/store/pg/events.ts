// team.events, the append-only log every desk pulls from (team migrations 1, 7, 8, 11): its reads by
// seq, and the notice a commit sends; its writes are in event-inserts.ts. Values come and go as pg
// gives them (int8 as text).
import type pg from 'pg';
import type { Queryable } from './connection.js';
import { bytes, date, maybe, onlyRow, rowMapper, text, textOrNull } from '../columns.js';

const maxOf = rowMapper((r) => textOrNull(r, 'max'));
const seqOf = rowMapper((r) => text(r, 'seq'));
const eventBySeqOf = rowMapper((r) => ({
  merchant_reference: text(r, 'merchant_reference'),
  actor: text(r, 'actor'),
  occurred_at: date(r, 'occurred_at'),
  note: textOrNull(r, 'note'),
}));

/** The channel a commit to team.events notifies with the highest new seq (migration 1's trigger). */
export const EVENTS_CHANNEL = 'team_events';

/** Subscribes `client` (a connection of its own: a pooled one would lose it) to EVENTS_CHANNEL. */
export async function listenForEvents(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${EVENTS_CHANNEL}`);
}

/** Stops hearing EVENTS_CHANNEL on `client` (listenForEvents again to hear it). */
export async function unlistenForEvents(client: pg.Client): Promise<void> {
  await client.query(`UNLISTEN ${EVENTS_CHANNEL}`);
}

/** An event as stored, with its chain's columns. */
export interface EventRow {
  seq: string;
  event_key: string;
  merchant_reference: string;
  internal_reference: string | null;
  source: string;
  kind: string;
  status: string | null;
  amount_minor: string | null;
  currency: string | null;
  signature: string;
  payload: string | null;
  evidence: string | null;
  note: string | null;
  payment_url: string | null;
  status_message: string | null;
  occurred_at: Date;
  recorded_at: Date;
  actor: string;
  prev_hash: Buffer;
  hash: Buffer;
}

const eventRowOf = rowMapper<EventRow>((r) => ({
  seq: text(r, 'seq'),
  event_key: text(r, 'event_key'),
  merchant_reference: text(r, 'merchant_reference'),
  internal_reference: textOrNull(r, 'internal_reference'),
  source: text(r, 'source'),
  kind: text(r, 'kind'),
  status: textOrNull(r, 'status'),
  amount_minor: textOrNull(r, 'amount_minor'),
  currency: textOrNull(r, 'currency'),
  signature: text(r, 'signature'),
  payload: textOrNull(r, 'payload'),
  evidence: textOrNull(r, 'evidence'),
  note: textOrNull(r, 'note'),
  payment_url: textOrNull(r, 'payment_url'),
  status_message: textOrNull(r, 'status_message'),
  occurred_at: date(r, 'occurred_at'),
  recorded_at: date(r, 'recorded_at'),
  actor: text(r, 'actor'),
  prev_hash: bytes(r, 'prev_hash'),
  hash: bytes(r, 'hash'),
}));

/** Up to `count` events after `afterSeq`, in seq order. */
export async function selectEventsAfter(db: Queryable, afterSeq: number, count: number): Promise<EventRow[]> {
  const r = await db.query(
    `SELECT seq, event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
            signature, payload, note, payment_url, status_message, occurred_at, recorded_at, actor, prev_hash, hash,
            evidence
     FROM team.events WHERE seq > $1 ORDER BY seq LIMIT $2`,
    [afterSeq, count],
  );
  return r.rows.map(eventRowOf);
}

/**
 * An event as selectEventsAfterRaw gives it: every value as PostgreSQL's text (bytea as '\x' and hex), the
 * two times as epoch milliseconds.
 */
export type RawEventRow = [
  seq: string,
  eventKey: string,
  merchantReference: string,
  internalReference: string | null,
  source: string,
  kind: string,
  status: string | null,
  amountMinor: string | null,
  currency: string | null,
  signature: string,
  payload: string | null,
  note: string | null,
  paymentUrl: string | null,
  statusMessage: string | null,
  occurredAtMs: string,
  recordedAtMs: string,
  actor: string,
  prevHash: string,
  hash: string,
  evidence: string | null,
];

/** Every value as PostgreSQL's text: the reader converts the few it needs itself. */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/**
 * selectEventsAfter for reading millions of rows (a new desk's bulk copy, the checks of the chain and the
 * signatures): arrays of text (no row objects, no Date parsing), times as epoch milliseconds computed by
 * the server, truncated as a Date of the same instant would be; up to `count` after `afterSeq`, to `uptoSeq`.
 */
export async function selectEventsAfterRaw(
  db: Queryable,
  afterSeq: number,
  count: number,
  uptoSeq: number,
): Promise<RawEventRow[]> {
  const r = await db.query<RawEventRow>({
    text: `SELECT seq, event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
                  signature, payload, note, payment_url, status_message,
                  floor(extract(epoch FROM occurred_at) * 1000)::bigint, floor(extract(epoch FROM recorded_at) * 1000)::bigint, actor,
                  prev_hash, hash, evidence
           FROM team.events WHERE seq > $1 AND seq <= $3 ORDER BY seq LIMIT $2`,
    values: [afterSeq, count, uptoSeq],
    rowMode: 'array',
    types: RAW_TEXT,
  });
  return r.rows;
}

/** The newest seq in the log (up to `uptoSeq` when given); null when it has none. */
export async function newestEventSeq(db: Queryable, uptoSeq?: number): Promise<string | null> {
  const r =
    uptoSeq === undefined
      ? await db.query('SELECT max(seq) AS max FROM team.events')
      : await db.query('SELECT max(seq) AS max FROM team.events WHERE seq <= $1', [uptoSeq]);
  return onlyRow(r.rows, maxOf);
}

/** The chain hash team.events holds at each of `seqs` that it has, in seq order (bytea as '\x' and hex). */
export async function selectEventHashes(db: Queryable, seqs: readonly number[]): Promise<[string, string][]> {
  const r = await db.query<[string, string]>({
    text: 'SELECT seq, hash FROM team.events WHERE seq = ANY($1::bigint[]) ORDER BY seq',
    values: [seqs],
    rowMode: 'array',
    types: RAW_TEXT,
  });
  return r.rows;
}

/** The event of `seq`: who wrote it, when, and its note (a refused resolution names the one that stands). */
export async function selectEventBySeq(
  db: Queryable,
  seq: string | number,
): Promise<{ merchant_reference: string; actor: string; occurred_at: Date; note: string | null } | undefined> {
  const r = await db.query('SELECT merchant_reference, actor, occurred_at, note FROM team.events WHERE seq = $1', [
    seq,
  ]);
  return maybe(r.rows[0], eventBySeqOf);
}

/** One merchant reference's events up to `uptoSeq`, in seq order, with their chain columns. */
export async function selectEventsOfReference(
  db: Queryable,
  merchantReference: string,
  uptoSeq: number,
): Promise<EventRow[]> {
  const r = await db.query(
    `SELECT seq, event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
            signature, payload, note, payment_url, status_message, occurred_at, recorded_at, actor, prev_hash, hash,
            evidence
     FROM team.events WHERE merchant_reference = $1 AND seq <= $2 ORDER BY seq`,
    [merchantReference, uptoSeq],
  );
  return r.rows.map(eventRowOf);
}

/** The seqs of one merchant reference's events, in order. */
export async function eventSeqsOfReference(db: Queryable, merchantReference: string): Promise<string[]> {
  const r = await db.query('SELECT seq FROM team.events WHERE merchant_reference = $1 ORDER BY seq', [
    merchantReference,
  ]);
  return r.rows.map(seqOf);
}
