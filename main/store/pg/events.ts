// team.events, the append-only log every desk pulls from (team migrations 1, 7, 8, 11): its inserts,
// its reads by seq, and the notice a commit sends. seq, actor, recorded_at and the hash chain are the
// database's (migration 1), never sent from here. The checks of what is written are the team's
// (main/team/events.ts); values come and go as pg gives them (int8 as text).
import type pg from 'pg';
import type { Queryable } from './connection.js';
import { boolList, bytes, date, maybe, onlyRow, rowMapper, text, textList, textOrNull } from '../columns.js';
import { binaryTextArray } from './text-arrays.js';

const seqKeyOf = rowMapper((r) => ({ seq: text(r, 'seq'), event_key: text(r, 'event_key') }));
const storedSeqsOf = rowMapper((r) => ({ stored: boolList(r, 'stored'), seqs: textList(r, 'seqs') }));
const storedOf = rowMapper((r) => boolList(r, 'stored'));
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

/** An event row as the inserts take it (checked by the team before): text, or null, as PostgreSQL reads it. */
export interface EventInsertRow {
  event_key: string | null;
  merchant_reference: string | null;
  internal_reference: string | null;
  source: string;
  kind: string | null;
  status: string | null;
  /** int8 as text. */
  amount_minor: string | null;
  currency: string | null;
  signature: string;
  payload: string | null;
  evidence: string | null;
  note: string | null;
  payment_url: string | null;
  status_message: string | null;
  /** ISO 8601. */
  occurred_at: string;
}

/** team.events' written columns, in the order the inserts below take them (each one parameter). */
const EVENT_FIELDS = [
  'event_key',
  'merchant_reference',
  'internal_reference',
  'source',
  'kind',
  'status',
  'amount_minor',
  'currency',
  'signature',
  'payload',
  'note',
  'payment_url',
  'status_message',
  'occurred_at',
  'evidence',
] as const satisfies readonly (keyof EventInsertRow)[];

const EVENT_COLUMNS = EVENT_FIELDS.join(', ');

/**
 * The rows as a set `e` with one column per field and their order `n`: each field comes as one text[]
 * parameter ($1 the keys, $2 the references, ...) in PostgreSQL's binary format (text-arrays.ts), so
 * the server copies the values rather than parsing a JSON document of the whole batch.
 */
const EVENT_ROWS = `unnest(${EVENT_FIELDS.map((_, i) => `$${i + 1}::text[]`).join(', ')})
  WITH ORDINALITY AS e(${EVENT_COLUMNS}, n)`;

/** Each column's value from `e`, in EVENT_COLUMNS' order. */
const EVENT_VALUES = EVENT_FIELDS.map((f) =>
  f === 'amount_minor' ? 'e.amount_minor::bigint' : f === 'occurred_at' ? 'e.occurred_at::timestamptz' : `e.${f}`,
).join(', ');

/** The parameters of EVENT_ROWS for `rows`. */
function eventParams(rows: readonly EventInsertRow[]): Buffer[] {
  return EVENT_FIELDS.map((f) => binaryTextArray(rows.map((r) => r[f])));
}

/**
 * The insert of a batch of rows, in their order: the one insert into team.events. A desk's writes
 * (team/record.ts recordEvents, team/intents.ts createIntent) and serve's callback store all go through
 * EVENT_ROWS and EVENT_VALUES, by one of the two statements below, so their columns cannot drift apart.
 * Two statements because the writers' logins differ: a desk reads event keys back, serve may not.
 * Neither is a named (prepared) statement, though that would spare planning each batch: PostgreSQL keeps
 * a prepared plan with the row-level security policies of the roles the login had when it was planned,
 * and does not plan again when an admin changes the login's role, so a desk made back office would go on
 * inserting as support on that connection (test/team/own-events-order.test.ts found it).
 */
const INSERT_EVENTS = `
INSERT INTO team.events (${EVENT_COLUMNS})
SELECT ${EVENT_VALUES}
FROM ${EVENT_ROWS}
ORDER BY n
ON CONFLICT (event_key) DO NOTHING
RETURNING seq, event_key`;

/**
 * Inserts the rows in one statement, skipping each key already stored (earlier, by anyone, or before in
 * this batch); the rows stored, with their seqs. Needs SELECT on event_key (a desk's login: migration 4).
 */
export async function insertEvents(
  db: Queryable,
  rows: readonly EventInsertRow[],
): Promise<{ seq: string; event_key: string }[]> {
  const r = await db.query(INSERT_EVENTS, eventParams(rows));
  return r.rows.map(seqKeyOf);
}

/**
 * The same insert for a writer that may not read event_key (serve's login, migration 8), in ONE statement
 * (one round trip, one commit): it asks team.events_stored which keys are stored (it may ask that, yes or
 * no, for keys it holds: $1, the rows' keys), inserts the others in the order given, and reads back only
 * their seqs. It names no conflict target (that would need SELECT on event_key) and skips no conflict: a
 * key another writer stores after this statement's snapshot and before its write turn fails the statement
 * whole (23505), and the caller asks again. The keys must be distinct (the caller leaves out a repeat).
 */
const INSERT_UNSTORED_EVENTS = `
WITH stored AS (SELECT team.events_stored($1::text[]) AS s),
added AS (
  INSERT INTO team.events (${EVENT_COLUMNS})
  SELECT ${EVENT_VALUES}
  FROM ${EVENT_ROWS}, stored
  WHERE NOT stored.s[n]
  ORDER BY n
  RETURNING seq
)
SELECT (SELECT s FROM stored) AS stored, ARRAY(SELECT seq FROM added ORDER BY seq) AS seqs`;

/**
 * Inserts the rows whose keys are not stored yet; for each row whether it was stored already, and the seqs
 * of those inserted now, ascending: drawn one row at a time in the order given, under one write turn, so
 * the i-th seq is the i-th row not stored before.
 */
export async function insertUnstoredEvents(
  db: Queryable,
  rows: readonly EventInsertRow[],
): Promise<{ stored: boolean[]; seqs: string[] }> {
  const r = await db.query(INSERT_UNSTORED_EVENTS, eventParams(rows));
  return onlyRow(r.rows, storedSeqsOf);
}

/** For each key, whether an event of that key is stored (team.events_stored, migration 8: serve may ask it). */
export async function eventsStored(db: Queryable, keys: readonly string[]): Promise<boolean[]> {
  const r = await db.query('SELECT team.events_stored($1::text[]) AS stored', [keys]);
  return onlyRow(r.rows, storedOf);
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
