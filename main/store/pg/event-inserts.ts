// team.events' writes: the events a desk records (insertEvents) and the callbacks serve stores
// (insertJudgedEvents), each column sent as one binary text[] (text-arrays.ts), and whether keys are
// stored. seq, actor, recorded_at and the hash chain are the database's (migration 1), never sent from
// here; the checks of what is written are the team's (main/team/events.ts). The reads are in events.ts.
import type { Queryable } from './connection.js';
import { boolList, onlyRow, rowMapper, text, textList, textOrNullList } from '../columns.js';
import { binaryTextArray } from './text-arrays.js';

const seqKeyOf = rowMapper((r) => ({ seq: text(r, 'seq'), event_key: text(r, 'event_key') }));
const judgedSeqsOf = rowMapper((r) => ({ keys: textOrNullList(r, 'keys'), seqs: textList(r, 'seqs') }));
const storedOf = rowMapper((r) => boolList(r, 'stored'));

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
 * The insert of the writers whose keys the database judges (team migration 18): serve's groups of callbacks,
 * and a desk's import recorded team-first. In ONE statement (one round trip, one commit): team.callback_keys
 * takes the events' write turn and answers, for each row in the order given, the key to store it under or
 * NULL (a key stored already; for a callback body, a repeat of what the record's latest callback says; one
 * said again after another status gets its number); the rows with a key are inserted under it, in that
 * order, and only their seqs are read back. A writer that may not read event_key (serve's login, migration
 * 8) learns nothing but those answers. It names no conflict target (that would need SELECT on event_key):
 * the turn is held from the question to the commit, so no writer stores a key in between. The keys must be
 * distinct (the caller leaves out a repeat).
 */
const INSERT_JUDGED_EVENTS = `
WITH judged AS (SELECT team.callback_keys($1::text[], $2::text[], $4::text[], $6::text[]) AS k),
added AS (
  INSERT INTO team.events (${EVENT_COLUMNS})
  SELECT ${EVENT_VALUES.replace('e.event_key', 'judged.k[n]')}
  FROM ${EVENT_ROWS}, judged
  WHERE judged.k[n] IS NOT NULL
  ORDER BY n
  RETURNING seq
)
SELECT (SELECT k FROM judged) AS keys, ARRAY(SELECT seq FROM added ORDER BY seq) AS seqs`;

/**
 * Inserts the rows under the keys the database judges them (INSERT_JUDGED_EVENTS): for each row the key it
 * was stored under now, or null when nothing was stored, and the seqs of those stored, ascending: drawn one
 * row at a time in the order given, under one write turn, so the i-th seq is the i-th row with a key.
 */
export async function insertJudgedEvents(
  db: Queryable,
  rows: readonly EventInsertRow[],
): Promise<{ keys: (string | null)[]; seqs: string[] }> {
  const r = await db.query(INSERT_JUDGED_EVENTS, eventParams(rows));
  return onlyRow(r.rows, judgedSeqsOf);
}

/** For each key, whether an event of that key is stored (team.events_stored, migration 8: serve may ask it). */
export async function eventsStored(db: Queryable, keys: readonly string[]): Promise<boolean[]> {
  const r = await db.query('SELECT team.events_stored($1::text[]) AS stored', [keys]);
  return onlyRow(r.rows, storedOf);
}
