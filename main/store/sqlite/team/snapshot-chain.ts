// What a snapshot file carries of the team record besides the desk's own rows (team/snapshot/): for each
// event, what its collection_events row does not keep of the team event (its seq; the kind, signature and
// note its writer gave; payment_url and status_message; when it happened where the row's received_at says
// otherwise; when the database recorded it; its evidence; an intent's payload, which its row stores as
// the collection instead), and, at the first event of each block of MARK_EVERY seqs (team/chain.ts), the
// event's hash in the team's chain. With these, each event's canonical content (team/chain.ts, team
// migration 10) is put together from the file alone, and the file's events are checked against the
// chain: each block's hashes from its mark to the next, the last to the hash team.events holds at the
// snapshot's seq. Only the publisher writes this table (team/snapshot/publish.ts); a desk never copies it.
import type { Db, ReadDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
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

export function createSnapshotChain(db: Db): void {
  db.exec(SNAPSHOT_CHAIN_SQL);
}

export function insertChainRows(db: Db, rows: readonly ChainRow[]): void {
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
// row `s`. Each value must have the type the team event's column has: a text column's value is text or
// NULL, a number's an integer a JS number holds exactly; anything else is written as a NUL character,
// which no text of the record holds, so the content can never hash as the record's. The trailing nulls
// canonicalEvent drops can only be actor's and evidence's (recorded_at is never null).
const TEXT = (x: string) => `(CASE WHEN typeof(${x}) IN ('text', 'null') THEN ${x} ELSE char(0) END)`;
const INT = (x: string) =>
  `(CASE WHEN typeof(${x}) = 'integer' AND ${x} BETWEEN -9007199254740991 AND 9007199254740991 THEN CAST(${x} AS TEXT) WHEN ${x} IS NULL THEN NULL ELSE char(0) END)`;
/** The payload: the snapshot_chain row's (an intent's) or the event row's, never both. */
const PAYLOAD = `(CASE WHEN s.payload IS NULL THEN ${TEXT('d.payload')} WHEN d.payload IS NULL THEN ${TEXT('s.payload')} ELSE char(0) END)`;
/** When it happened: the snapshot_chain row's, or the event row's received_at. */
const OCCURRED = `(CASE WHEN s.occurred_at IS NULL THEN ${INT('d.received_at')} ELSE ${INT('s.occurred_at')} END)`;
const FIELDS = [
  INT('s.seq'),
  TEXT('d.dedupe_key'),
  TEXT('d.merchant_reference'),
  TEXT('d.internal_reference'),
  TEXT('d.source'),
  TEXT('s.kind'),
  TEXT('d.status'),
  INT('d.amount_minor'),
  TEXT('d.currency'),
  TEXT('s.signature'),
  PAYLOAD,
  TEXT('s.note'),
  TEXT('s.payment_url'),
  TEXT('s.status_message'),
  OCCURRED,
  INT('s.recorded_at'),
];
const CANONICAL = `(CASE
  WHEN s.evidence IS NOT NULL THEN json_array(${FIELDS.join(', ')}, ${TEXT('d.actor')}, ${TEXT('s.evidence')})
  WHEN d.actor IS NOT NULL THEN json_array(${FIELDS.join(', ')}, ${TEXT('d.actor')})
  ELSE json_array(${FIELDS.join(', ')}) END)`;

/**
 * Events `afterId` + 1 .. `uptoId` of a snapshot file, in id order: [id, seq, canonical content as
 * UTF-8 bytes, mark or null]. An event without its snapshot_chain row is not given (the caller counts).
 */
export function canonicalContents(
  db: ReadDb,
  afterId: number,
  uptoId: number,
): IterableIterator<[number, number, Buffer, Buffer | null]> {
  return readStatement(
    db,
    `SELECT d.id, s.seq, CAST(${CANONICAL} AS BLOB), s.mark
       FROM collection_events d JOIN snapshot_chain s ON s.id = d.id
      WHERE d.id > ? AND d.id <= ? ORDER BY d.id`,
    'raw',
  ).iterate(afterId, uptoId) as IterableIterator<[number, number, Buffer, Buffer | null]>;
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

/** How many snapshot_chain rows, their lowest and highest id. */
export function chainExtent(db: ReadDb): { rows: number; first: number | null; last: number | null } {
  const [rows, first, last] = readStatement(
    db,
    'SELECT count(*), min(id), max(id) FROM snapshot_chain',
    'raw',
  ).get() as [number, number | null, number | null];
  return { rows, first, last };
}

/** The marks, in id order: [id, seq, hash]. */
export function chainMarks(db: ReadDb): [number, number, Buffer][] {
  return readStatement(
    db,
    'SELECT id, seq, mark FROM snapshot_chain WHERE mark IS NOT NULL ORDER BY id',
    'raw',
  ).all() as [number, number, Buffer][];
}
