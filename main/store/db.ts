import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrations as allMigrations, type Migration } from './migrations/index.js';

export type Db = Database.Database;

export class StoreError extends Error {
  override name = 'StoreError';
}

/**
 * Opens (creating if needed) the app database: WAL, foreign keys on, migrations applied.
 * Refuses a database written by a newer version of the app instead of guessing.
 */
export function openDatabase(file: string, migrations: Migration[] = allMigrations): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, migrations);
  return db;
}

export function migrate(db: Db, migrations: Migration[] = allMigrations): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  if (current > latest) {
    throw new StoreError(
      `the database is at schema version ${current}, newer than this app knows (${latest}); use a newer Merchant Desk`,
    );
  }
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}
