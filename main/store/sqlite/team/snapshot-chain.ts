// What a snapshot file carries of the team record besides the desk's own rows (team/snapshot/): for each
// event, what its collection_events row does not keep of the team event (its seq; the kind, signature and
// note its writer gave; payment_url and status_message; when it happened where the row's received_at says
// otherwise; when the database recorded it; its evidence; an intent's payload, which its row stores as
// the collection instead), and, at the first event of each block of MARK_EVERY seqs (team/chain.ts), the
// event's hash in the team's chain. With these, each event's canonical content (team/chain.ts, team
// migration 10) is put together from the file alone, and the file's events are checked against the
// chain: each block's hashes from its mark to the next, the last to the hash team.events holds at the
// snapshot's seq. Only the publisher writes this table (team/snapshot/publish.ts); a desk never copies it.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { asValues, bytesOrNullValue, bytesValue, intOrNullValue, intValue, textValue } from '../../columns.js';
import { writeTransaction } from '../transaction.js';

/** The table, as a snapshot file has it (its schema is checked against this text, snapshot-file.ts). */
export const SNAPSHOT_CHAIN_SQL = `CREATE TABLE snapshot_chain (
  id INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  signature TEXT NOT NULL,
  note TEXT,
  payment_url TEXT,
  status_message TEXT,
  occurred_at INTEGER,
  recorded_at INTEGER NOT NULL,
  evidence TEXT,
  payload TEXT,
  mark BLOB
)`;

/** One event's row of snapshot_chain. */
export interface ChainRow {
  /** The event's collection_events id in the snapshot. */
  id: number;
  seq: number;
  kind: string;
  signature: string;
  note: string | null;
  paymentUrl: string | null;
  statusMessage: string | null;
  /** null: the collection_events row's received_at. */
  occurredAt: number | null;
  recordedAt: number;
  evidence: string | null;
  /** The team payload when the collection_events row keeps none (an intent's); else null. */
  payload: string | null;
  /** The event's chain hash when it is a mark (the first of a block of MARK_EVERY seqs); else null. */
  mark: Buffer | null;
}

export function createSnapshotChain(db: WriteDb): void {
  db.exec(SNAPSHOT_CHAIN_SQL);
}

export function insertChainRows(db: WriteDb, rows: readonly ChainRow[]): void {
  const ins = statement(db, 'INSERT INTO snapshot_chain VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  writeTransaction(db, () => {
    for (const r of rows)
      ins.run(
        r.id,
        r.seq,
        r.kind,
        r.signature,
        r.note,
        r.paymentUrl,
        r.statusMessage,
        r.occurredAt,
        r.recordedAt,
        r.evidence,
        r.payload,
        r.mark,
      );
  });
}

// An event's canonical content put together by SQLite: the JSON array of each column's text that
// team/chain.ts canonicalEvent writes (json_array escapes strings exactly as JSON.stringify and
// PostgreSQL's to_json do: the same escapes, no spaces), from the event's row `d` and its snapshot_chain
// row `s`. Each value must have the type the team event's column has, or the content can never hash as
// the record's: a text column's value is written by json_array as it is, so a number comes out unquoted
// (and a BLOB stops the statement with an error: the caller says so); a number column's value, which
// the canonical text holds as a string, is written as its digits only when it is an integer, and as a
// NUL character, which no text of the record holds, when it is anything else. The trailing nulls
// canonicalEvent drops can only be actor's and evidence's (recorded_at is never null).
const INT = (x: string) =>
  `(CASE WHEN typeof(${x}) = 'integer' THEN CAST(${x} AS TEXT) WHEN ${x} IS NULL THEN NULL ELSE char(0) END)`;
/** The payload: the snapshot_chain row's (an intent's) or the event row's, never both. */
const PAYLOAD = `(CASE WHEN s.payload IS NULL THEN d.payload WHEN d.payload IS NULL THEN s.payload ELSE char(0) END)`;
/** When it happened: the snapshot_chain row's, or the event row's received_at. */
const OCCURRED = `(CASE WHEN s.occurred_at IS NULL THEN ${INT('d.received_at')} ELSE ${INT('s.occurred_at')} END)`;
const FIELDS = [
  INT('s.seq'),
  'd.dedupe_key',
  'd.merchant_reference',
  'd.internal_reference',
  'd.source',
  's.kind',
  'd.status',
  INT('d.amount_minor'),
  'd.currency',
  's.signature',
  PAYLOAD,
  's.note',
  's.payment_url',
  's.status_message',
  OCCURRED,
  INT('s.recorded_at'),
];
const CANONICAL = `(CASE
  WHEN s.evidence IS NOT NULL THEN json_array(${FIELDS.join(', ')}, d.actor, s.evidence)
  WHEN d.actor IS NOT NULL THEN json_array(${FIELDS.join(', ')}, d.actor)
  ELSE json_array(${FIELDS.join(', ')}) END)`;

/**
 * Events `afterId` + 1 .. `uptoId` of a snapshot file, in id order: [id, seq, content, mark or null],
 * where content is 32 zero bytes (room for the hash before it, team/snapshot/chain.ts) and then the
 * event's canonical content as UTF-8. An event without its snapshot_chain row is not given (the caller
 * counts). Throws when a text column holds a BLOB.
 */
export function canonicalContents(
  db: ReadDb,
  afterId: number,
  uptoId: number,
): IterableIterator<[number, number, Buffer, Buffer | null]> {
  return readStatement(
    db,
    `SELECT s.id, s.seq, CAST(zeroblob(32) || ${CANONICAL} AS BLOB), s.mark
       FROM snapshot_chain s JOIN collection_events d ON d.id = s.id
      WHERE s.id > ? AND s.id <= ? ORDER BY s.id`,
    'raw',
  ).iterate(afterId, uptoId) as IterableIterator<[number, number, Buffer, Buffer | null]>;
}

/**
 * Events `afterId` + 1 .. `uptoId` of a snapshot file as ONE blob: for each event, its id and its seq as
 * digits (the seq as canonicalContents writes it: digits only when it is an integer), a space after
 * each, its canonical content as canonicalContents gives it (without the room for the hash), and a
 * newline. json_array never writes a raw newline (it escapes every control character), so each event ends
 * at the first one after its header. A blob of bytes, not text: the content is hashed as SQLite wrote it,
 * byte for byte. Events come in the order SQLite scans them (the caller checks each id in turn); an event
 * without its snapshot_chain row is not given. One value for a page instead of a Buffer per event: the
 * per-event Buffer was about a third of the chain check's CPU (5.5 against 3.8 µs an event, measured on a
 * 100,000-collection file). Throws when a text column holds a BLOB, or the page is too big for one value:
 * the caller then reads the page event by event (canonicalContents) to say which.
 */
export function canonicalPage(db: ReadDb, afterId: number, uptoId: number): Buffer | null {
  const page = readStatement(
    db,
    `SELECT CAST(group_concat(printf('%d %s ', s.id, ${INT('s.seq')}) || ${CANONICAL} || char(10), '') AS BLOB)
       FROM snapshot_chain s JOIN collection_events d ON d.id = s.id
      WHERE s.id > ? AND s.id <= ?`,
    'pluck',
  ).get(afterId, uptoId);
  return bytesOrNullValue(page, 'canonical page');
}

/**
 * An INTEGER column in SQLite's JSON, which cannot tell 1.0 from 1: its value when it is an integer or
 * NULL, else the name of the type it holds ('real', 'text', 'blob'), which columns.ts
 * typedIntOrNullValue reads and names (derivationPage here, snapshot-file.ts tableJsonCursor).
 */
export function integerOrType(column: string): string {
  return `CASE WHEN typeof(${column}) IN ('integer', 'null') THEN ${column} ELSE typeof(${column}) END`;
}

/**
 * The columns of a derivationPage row, by name, in its order, each with what the statement reads for
 * it: the event row's (d), then its snapshot_chain row's (s, the chain_ ones), then whether the event
 * row's payload is NULL (1 or 0). The statement is written from this list and the row read by these
 * names (team/snapshot/derivation-row.ts), so a name cannot take another column's value. JSON says a
 * number from a text, not an integer from a real: collection_id and received_at, the columns of the
 * event row read here whose value is the desk's own (the others the chain binds), are given as the
 * type they hold unless they are integers (integerOrType).
 */
const DERIVATION = [
  ['id', 's.id'],
  ['collection_id', integerOrType('d.collection_id')],
  ['merchant_reference', 'd.merchant_reference'],
  ['internal_reference', 'd.internal_reference'],
  ['source', 'd.source'],
  ['kind', 'd.kind'],
  ['status', 'd.status'],
  ['received_at', integerOrType('d.received_at')],
  ['signature', 'd.signature'],
  ['amount_minor', 'd.amount_minor'],
  ['currency', 'd.currency'],
  ['note', 'd.note'],
  ['actor', 'd.actor'],
  ['chain_seq', 's.seq'],
  ['chain_kind', 's.kind'],
  ['chain_signature', 's.signature'],
  ['chain_note', 's.note'],
  ['chain_payment_url', 's.payment_url'],
  ['chain_status_message', 's.status_message'],
  ['chain_occurred_at', 's.occurred_at'],
  ['chain_payload', 's.payload'],
  ['payload_is_null', 'd.payload IS NULL'],
] as const;
export const DERIVATION_COLUMNS = DERIVATION.map(([name]) => name);
export type DerivationColumn = (typeof DERIVATION_COLUMNS)[number];

/**
 * The DERIVATION_COLUMNS of events `afterId` + 1 .. `uptoId` a desk derives its rows from
 * (team/snapshot/verify.ts), as ONE JSON text: an array of them per event, in id order. One text for a
 * page of rows: SQLite writes it in C and JSON.parse reads it at about half what handing V8 each value
 * costs. Throws when a column read holds a BLOB.
 */
export function derivationPage(db: ReadDb, afterId: number, uptoId: number): string {
  const page = readStatement(
    db,
    `SELECT json_group_array(json_array(${DERIVATION.map(([, sql]) => sql).join(', ')}))
       FROM snapshot_chain s JOIN collection_events d ON d.id = s.id
      WHERE s.id > ? AND s.id <= ?`,
    'pluck',
  ).get(afterId, uptoId);
  return textValue(page, 'json_group_array');
}

/** An event row's payload and its snapshot_chain row's evidence, for a signature checked again here. */
export function payloadAndEvidence(db: ReadDb, id: number): [unknown, unknown] | undefined {
  const row = readStatement(
    db,
    'SELECT d.payload, s.evidence FROM collection_events d JOIN snapshot_chain s ON s.id = d.id WHERE d.id = ?',
    'raw',
  ).get(id);
  if (row === undefined) return undefined;
  const [payload, evidence] = asValues(row);
  return [payload, evidence];
}

/** The snapshot_chain columns a desk derives its rows from, in this order (after the id). */
export const CHAIN_COLUMNS = [
  'id',
  'seq',
  'kind',
  'signature',
  'note',
  'payment_url',
  'status_message',
  'occurred_at',
  'recorded_at',
  'evidence',
  'payload',
] as const;

/** The lowest and highest id of snapshot_chain (each one seek), null for an empty table. */
export function chainExtent(db: ReadDb): { first: number | null; last: number | null } {
  const first = intOrNullValue(readStatement(db, 'SELECT min(id) FROM snapshot_chain', 'pluck').get(), 'min(id)');
  const last = intOrNullValue(readStatement(db, 'SELECT max(id) FROM snapshot_chain', 'pluck').get(), 'max(id)');
  return { first, last };
}

/** The marks, in id order: [id, seq, hash]. */
export function chainMarks(db: ReadDb): [number, number, Buffer][] {
  const rows = readStatement(
    db,
    'SELECT id, seq, mark FROM snapshot_chain WHERE mark IS NOT NULL ORDER BY id',
    'raw',
  ).all();
  return rows.map((row): [number, number, Buffer] => {
    const [id, seq, mark] = asValues(row);
    return [intValue(id, 'id'), intValue(seq, 'seq'), bytesValue(mark, 'mark')];
  });
}
