// serve's journal of the callbacks it acknowledged (issue 29; serve/journal.ts says why): its own SQLite
// file in serve's data folder, with its own schema (not the desk's migrations), kept for a number of days
// and pruned. Each row is the team event serve stored (or found stored) for a verified delivery, as it
// would write it again, evidence included.
import type { Db, ReadDb, WriteDb } from './connection.js';
import { openDatabase } from './connection.js';
import type { Migration } from './migrations/index.js';
import { readStatement, statement } from './statements.js';
import { intOrNull, intValue, num, rowMapper, text, textOrNull, textValue } from '../columns.js';
import { writeTransaction } from './transaction.js';

/** The journal's own schema, numbered apart from the desk's. */
const serveJournalMigrations: Migration[] = [
  {
    version: 1,
    name: 'acknowledged-callbacks',
    sql: `
CREATE TABLE acknowledged (
  event_key TEXT PRIMARY KEY,
  -- The seq the team record gave it when serve stored it; null when it was there already (another writer).
  seq INTEGER,
  -- The team event as serve writes it (JSON): body and signature headers as received.
  event TEXT NOT NULL,
  acknowledged_at INTEGER NOT NULL,
  -- When serve last put it back into the record (it had lost it).
  restored_at INTEGER
);
CREATE INDEX acknowledged_time ON acknowledged (acknowledged_at, event_key);
CREATE TABLE record_report (
  one_row INTEGER PRIMARY KEY CHECK (one_row = 1),
  report TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
`,
  },
  {
    // The body and the signature headers in columns of their own, as received, and the rest of the event
    // as JSON in the event column: the body is JSON itself, and written inside the event's JSON each of its quotes
    // was escaped again (2.3 KB a callback instead of 1.3, and the encoding cost more than the insert).
    // Rows kept before have both in that column and null here.
    version: 2,
    name: 'acknowledged-payload-columns',
    sql: `
ALTER TABLE acknowledged ADD COLUMN payload TEXT;
ALTER TABLE acknowledged ADD COLUMN evidence TEXT;
`,
  },
];

/**
 * Opens (creating) the journal. Commits sync as NORMAL, not FULL: a row outlives serve's crash, and a
 * power loss of serve's host loses at most the last commits of a copy whose original is in PostgreSQL
 * already; an fsync more per group of callbacks would be paid on every delivery.
 */
export function openServeJournal(file: string): Db {
  const db = openDatabase(file, serveJournalMigrations);
  db.pragma('synchronous = NORMAL');
  return db;
}

export interface AcknowledgedRow {
  event_key: string;
  seq: number | null;
  /** The event as JSON, without its payload and evidence when those are in their columns (version 2). */
  event: string;
  payload: string | null;
  evidence: string | null;
  acknowledged_at: number;
}
const acknowledgedRowOf = rowMapper<AcknowledgedRow>((r) => ({
  event_key: text(r, 'event_key'),
  seq: intOrNull(r, 'seq'),
  event: text(r, 'event'),
  payload: textOrNull(r, 'payload'),
  evidence: textOrNull(r, 'evidence'),
  acknowledged_at: num(r, 'acknowledged_at'),
}));

/** Keeps the callbacks just acknowledged; a key kept before keeps its seq when this one has none. */
export function keepAcknowledged(db: WriteDb, rows: readonly AcknowledgedRow[]): void {
  if (!rows.length) return;
  writeTransaction(db, () => {
    const st = statement(
      db,
      `INSERT INTO acknowledged (event_key, seq, event, payload, evidence, acknowledged_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (event_key) DO UPDATE SET seq = coalesce(excluded.seq, acknowledged.seq),
         acknowledged_at = excluded.acknowledged_at`,
    );
    for (const r of rows) st.run(r.event_key, r.seq, r.event, r.payload, r.evidence, r.acknowledged_at);
  });
}

/** Up to `limit` rows acknowledged at or before `atOrBefore`, newest first, after the row (`afterAt`, `afterKey`) of a previous page. */
export function acknowledgedBefore(
  db: ReadDb,
  atOrBefore: number,
  limit: number,
  after: { at: number; key: string } | null,
): AcknowledgedRow[] {
  if (!after)
    return readStatement(
      db,
      `SELECT event_key, seq, event, payload, evidence, acknowledged_at FROM acknowledged WHERE acknowledged_at <= ?
       ORDER BY acknowledged_at DESC, event_key DESC LIMIT ?`,
    )
      .all(atOrBefore, limit)
      .map(acknowledgedRowOf);
  return readStatement(
    db,
    `SELECT event_key, seq, event, payload, evidence, acknowledged_at FROM acknowledged
     WHERE acknowledged_at <= ? AND (acknowledged_at < ? OR (acknowledged_at = ? AND event_key < ?))
     ORDER BY acknowledged_at DESC, event_key DESC LIMIT ?`,
  )
    .all(atOrBefore, after.at, after.at, after.key, limit)
    .map(acknowledgedRowOf);
}

export function markRestored(db: WriteDb, keys: readonly string[], at: number): void {
  writeTransaction(db, () => {
    const st = statement(db, 'UPDATE acknowledged SET restored_at = ? WHERE event_key = ?');
    for (const k of keys) st.run(at, k);
  });
}

/**
 * Forgets what was acknowledged before `before`; how many rows went. With `limit`, at most that many (the
 * oldest), so a large prune is done in short transactions between which callbacks are kept.
 */
export function pruneAcknowledged(db: WriteDb, before: number, limit?: number): number {
  return writeTransaction(db, () =>
    limit === undefined
      ? statement(db, 'DELETE FROM acknowledged WHERE acknowledged_at < ?').run(before).changes
      : statement(
          db,
          `DELETE FROM acknowledged WHERE rowid IN
             (SELECT rowid FROM acknowledged WHERE acknowledged_at < ? ORDER BY acknowledged_at LIMIT ?)`,
        ).run(before, limit).changes,
  );
}

/**
 * Folds what the WAL holds into the file as far as it can without waiting for a reader or the writer
 * (PASSIVE): the journal's thread does it for the connection that keeps the rows, which never does.
 */
export function checkpointPassive(db: Db): void {
  db.pragma('wal_checkpoint(PASSIVE)');
}

/** This connection's commits never checkpoint (another connection does: checkpointPassive). */
export function neverCheckpoint(db: Db): void {
  db.pragma('wal_autocheckpoint = 0');
}

export function journalSize(db: ReadDb): number {
  return intValue(readStatement(db, 'SELECT count(*) FROM acknowledged', 'pluck').get(), 'count(*)');
}

/** The last report of a record that went back (JSON), kept across restarts; undefined when none. */
export function keptReport(db: ReadDb): string | undefined {
  const report = readStatement(db, 'SELECT report FROM record_report WHERE one_row = 1', 'pluck').get();
  return report === undefined ? undefined : textValue(report, 'report');
}

export function keepReport(db: WriteDb, report: string, now: number): void {
  writeTransaction(db, () =>
    statement(
      db,
      `INSERT INTO record_report (one_row, report, updated_at) VALUES (1, ?, ?)
       ON CONFLICT (one_row) DO UPDATE SET report = excluded.report, updated_at = excluded.updated_at`,
    ).run(report, now),
  );
}
