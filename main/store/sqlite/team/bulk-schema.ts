// The secondary indexes and insert triggers a bulk load (a new desk's copy of the team history,
// team/sync/bulk.ts, or a snapshot's copy, snapshot-copy.ts) drops while its tables fill and makes again
// after, each from the migrations' own SQL: building an index once after the load is much cheaper than
// keeping it up to date row by row.
import type { ReadDb, WriteDb } from '../connection.js';
import { migrations } from '../migrations/index.js';
import { readStatement } from '../statements.js';
import { texts } from '../../columns.js';
import { writeTransaction } from '../transaction.js';

/** Tables whose secondary indexes the bulk copy drops while they are empty, and builds after. */
const BULK_TABLES = new Set(['collections', 'collection_events']);

/**
 * The non-unique indexes the migrations leave on BULK_TABLES, with the migrations' own SQL: replayed
 * in order, so an index a later migration dropped is not brought back. UNIQUE ones stay (they are
 * constraints the copy relies on).
 */
export function bulkIndexes(): Map<string, string> {
  const out = new Map<string, string>();
  const re =
    /CREATE\s+INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+ON\s+(\w+)[^;]*;|DROP\s+INDEX\s+(?:IF\s+EXISTS\s+)?(\w+)\s*;/gi;
  for (const m of migrations)
    for (const x of m.sql.matchAll(re)) {
      if (x[3]) out.delete(x[3]);
      else if (BULK_TABLES.has(x[2]!)) out.set(x[1]!, x[0]);
    }
  return out;
}

/**
 * Triggers the migrations leave on BULK_TABLES, with their own SQL, replayed in order. `insertOnly`: the
 * BEFORE INSERT ones of collection_events (migration 7). They refuse an INSERT OR REPLACE over a stored
 * event at the price of two EXISTS lookups per insert; the copy's insert replaces nothing and skips a
 * stored dedupe key by ON CONFLICT (as the ledger's append does), so on an empty desk the copy drops them and
 * makes them again, from the same SQL, in the transaction that builds the indexes. All of them: a
 * snapshot start (snapshot-copy.ts) copies whole tables with SQLite's transfer optimisation, which
 * SQLite uses only for a table without triggers, and makes them again in the same transaction.
 */
export function bulkTriggers(insertOnly = true): Map<string, string> {
  const out = new Map<string, string>();
  const re =
    /CREATE\s+TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+BEFORE\s+(INSERT|UPDATE|DELETE)\s+ON\s+(\w+)\b[\s\S]*?\bEND\s*;|DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?(\w+)\s*;/gi;
  for (const m of migrations)
    for (const x of m.sql.matchAll(re)) {
      if (x[4]) out.delete(x[4]);
      else if (insertOnly ? x[3] === 'collection_events' && x[2]!.toUpperCase() === 'INSERT' : BULK_TABLES.has(x[3]!))
        out.set(x[1]!, x[0]);
    }
  return out;
}

/** The names of the indexes and triggers the database has now. */
export function presentSchema(db: ReadDb): Set<string> {
  return new Set(
    texts(
      readStatement(db, "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')", 'pluck').all(),
      'name',
    ),
  );
}

/** Drops, in one transaction, those of the named indexes and triggers that are present. */
export function dropForBulk(db: WriteDb, indexes: Iterable<string>, triggers: Iterable<string>): void {
  const present = presentSchema(db);
  writeTransaction(db, () => {
    for (const name of indexes) if (present.has(name)) db.exec(`DROP INDEX ${name}`);
    for (const name of triggers) if (present.has(name)) db.exec(`DROP TRIGGER ${name}`);
  });
}

/** Makes those of `wanted` (name to its migration's SQL) that are missing; call inside a write transaction. */
export function makeMissing(db: WriteDb, wanted: ReadonlyMap<string, string>): void {
  const present = presentSchema(db);
  for (const [name, sql] of wanted) if (!present.has(name)) db.exec(sql);
}
