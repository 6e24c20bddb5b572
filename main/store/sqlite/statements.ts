// One statement cache for every module that talks to SQLite. Preparing a statement costs a parse and a
// plan (tens of microseconds); the hot paths (a callback's insert, a page of the collections list, a
// pulled event's apply) run the same few statements thousands of times a second, so each connection
// keeps every statement it has prepared, keyed by its text. Before this, 13 WeakMap registries in 5 files
// each kept their own.
import type Database from 'better-sqlite3';
import type { ReadDb, ReadStatement, WriteDb } from './connection.js';

/**
 * How rows come back. better-sqlite3's `pluck()` and `raw()` change the statement object itself, so a
 * shared statement must never be switched by a caller: the mode is part of the cache key instead.
 */
export type RowMode = 'object' | 'pluck' | 'raw';

const byConnection = new WeakMap<object, Map<string, Database.Statement>>();

function cachedFor(db: { prepare(sql: string): unknown }, sql: string, mode: RowMode): Database.Statement {
  let statements = byConnection.get(db);
  if (!statements) byConnection.set(db, (statements = new Map()));
  const key = mode === 'object' ? sql : `${mode}\u0000${sql}`;
  let stmt = statements.get(key);
  if (!stmt) {
    stmt = db.prepare(sql) as Database.Statement;
    if (mode === 'pluck') stmt.pluck();
    else if (mode === 'raw') stmt.raw();
    statements.set(key, stmt);
  }
  return stmt;
}

/** The connection's prepared statement for `sql`, prepared on first use. Never call pluck/raw on it. */
export function statement(db: WriteDb, sql: string, mode: RowMode = 'object'): Database.Statement {
  return cachedFor(db, sql, mode);
}

/** The same for a read handle: a statement that can only read. */
export function readStatement(db: ReadDb, sql: string, mode: RowMode = 'object'): ReadStatement {
  return cachedFor(db, sql, mode);
}
