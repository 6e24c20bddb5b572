// The two ways the app runs a transaction. better-sqlite3's plain db.transaction() is DEFERRED: it
// starts as a reader and upgrades to a writer at its first write. Under WAL, if another connection
// (the CLI, a second window, an export worker) wrote in between, that upgrade fails at once with
// "database is locked" and busy_timeout never applies. An IMMEDIATE transaction takes the write lock
// at BEGIN, where SQLite does wait up to busy_timeout. eslint.config.js forbids db.transaction()
// outside this file so the deferred form is not used for writes again.
import type { WriteDb } from './connection.js';

/** Runs `fn` in a write transaction (BEGIN IMMEDIATE; a savepoint when already inside one). */
export function writeTransaction<T>(db: WriteDb, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/** Runs `fn` in a read-only transaction: one consistent snapshot for several reads. Never write in it. */
export function readTransaction<T>(db: Pick<WriteDb, 'transaction'>, fn: () => T): T {
  return db.transaction(fn).deferred();
}
