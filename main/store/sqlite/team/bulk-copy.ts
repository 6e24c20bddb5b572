// A new desk's bulk copy of the team history (team/sync/bulk.ts): the events inserted as the copy
// works them out, the page cache it runs with, and the questions its start rule asks of the desk.
import type Database from 'better-sqlite3';
import type { Db, ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { intValue } from '../../columns.js';

/** Whether the desk has neither a collection nor an event. */
export function isEmpty(db: ReadDb): boolean {
  return (
    !readStatement(db, 'SELECT 1 FROM collections LIMIT 1').get() &&
    !readStatement(db, 'SELECT 1 FROM collection_events LIMIT 1').get()
  );
}

/**
 * True when some collection has no reconciliation row above the highest reconciled id: a full
 * recompute (or a bulk start) stopped before its end. The incremental path never leaves that state.
 */
export function needsFullReconcile(db: ReadDb): boolean {
  return !!readStatement(
    db,
    'SELECT 1 FROM collections WHERE id > (SELECT COALESCE(MAX(collection_id), 0) FROM reconciliation) LIMIT 1',
  ).get();
}

/**
 * Inserts one copied event; `values` are its columns from collection_id to actor, in that order
 * (team/sync/bulk-chunk.ts eventValues). An event whose dedupe key is stored already is skipped (0 changes).
 */
export function insertCopiedEvent(db: WriteDb, values: readonly unknown[]): Database.RunResult {
  return statement(
    db,
    `INSERT INTO collection_events (collection_id, merchant_reference, internal_reference, source, kind, status, received_at,
         signature, amount_minor, currency, dedupe_key, payload, note, actor)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (dedupe_key) DO NOTHING`,
  ).run(...values);
}

/**
 * Runs `fn` with a larger page cache (the chunks and index builds touch far more pages than the app's
 * default keeps) and a helper thread for CREATE INDEX's sort (where SQLite has them; elsewhere a no-op),
 * both restored after.
 */
export async function withBulkCache<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  const cacheSize = intValue(db.pragma('cache_size', { simple: true }), 'cache_size');
  db.pragma('cache_size = -262144');
  const threads = intValue(db.pragma('threads', { simple: true }), 'threads');
  db.pragma('threads = 2');
  try {
    return await fn();
  } finally {
    db.pragma(`cache_size = ${cacheSize}`);
    db.pragma(`threads = ${threads}`);
  }
}
