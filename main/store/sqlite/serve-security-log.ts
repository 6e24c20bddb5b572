// serve's own SQLite file (`serve.sqlite` in its data folder) holds one table: the security log of the
// callbacks it refused (callbacks/security-log.ts). It gets a schema of its own, numbered apart from the
// desk's, instead of every desk migration (collections, reconciliation, the team's sync state: tables serve
// never reads). A file made before that carries the desk's whole schema; it is moved aside once, its
// counts copied into the new file, and left beside it for the operator to delete.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { openDatabase, type Db } from './connection.js';
import type { Migration } from './migrations/index.js';
import { sql as securityLogTable } from './migrations/006-callback-security-log.js';

/** serve.sqlite's schema: the desk's security log table, the same definition (migrations/006). */
const serveSecurityLogMigrations: Migration[] = [{ version: 1, name: 'callback-security-log', sql: securityLogTable }];

/** What opening found, for serve's start-up log line. */
export interface ServeSecurityLogOpened {
  db: Db;
  /** Where a file with the desk's whole schema was moved, its counts copied from (absent when none was). */
  movedAside?: string;
}

export function openServeSecurityLog(file: string, now: () => number = Date.now): ServeSecurityLogOpened {
  const aside = fs.existsSync(file) && hasDeskSchema(file) ? moveAside(file, now()) : undefined;
  const db = openDatabase(file, serveSecurityLogMigrations);
  if (aside) {
    db.prepare('ATTACH DATABASE ? AS before_own_schema').run(aside);
    try {
      db.exec('INSERT OR IGNORE INTO main.callback_security_log SELECT * FROM before_own_schema.callback_security_log');
    } finally {
      db.exec('DETACH DATABASE before_own_schema');
    }
    return { db, movedAside: aside };
  }
  return { db };
}

/** True for a file the desk's migrations made: it has the desk's first table. */
function hasDeskSchema(file: string): boolean {
  const probe = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (
      probe.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'collections'").get() !== undefined
    );
  } finally {
    probe.close();
  }
}

/** Renames the file, as one file. */
function moveAside(file: string, at: number): string {
  // Out of WAL mode first: the WAL is folded into the file, so the renamed file alone holds every count,
  // and reading it later leaves no side files beside it.
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
  const aside = `${file}.desk-schema-${new Date(at).toISOString().replace(/[:.]/g, '-')}`;
  fs.renameSync(file, aside);
  return aside;
}
