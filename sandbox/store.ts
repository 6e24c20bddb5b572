// The sandbox's state: one SQLite file in stateDir. Each state change runs in a transaction, so a
// rejected request changes nothing and a crash leaves the last committed state.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

export type SandboxDb = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS wallets (
  currency TEXT NOT NULL, wallet_type TEXT NOT NULL,
  available INTEGER NOT NULL, uncleared INTEGER NOT NULL, reserve INTEGER NOT NULL,
  PRIMARY KEY (currency, wallet_type)
);
CREATE TABLE IF NOT EXISTS collections (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merchant_reference TEXT NOT NULL UNIQUE,
  internal_reference TEXT NOT NULL UNIQUE,
  token TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL,
  currency TEXT NOT NULL,
  amount INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  -- when the uncleared credit moves to available (NULL: nothing to clear)
  clear_at INTEGER,
  -- when the flip card's final status changes (NULL: never)
  flip_at INTEGER,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS collections_pending ON collections (status, expires_at);
CREATE INDEX IF NOT EXISTS collections_day ON collections (currency, created_at);
CREATE INDEX IF NOT EXISTS collections_clear ON collections (clear_at) WHERE clear_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS collections_flip ON collections (flip_at) WHERE flip_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merchant_reference TEXT NOT NULL,
  event TEXT NOT NULL,
  transaction_status TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  held INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS callback_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  entry TEXT NOT NULL
);
`;

export function openSandboxDb(stateDir: string): SandboxDb {
  fs.mkdirSync(stateDir, { recursive: true });
  const db = new Database(path.join(stateDir, 'sandbox.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  return db;
}

export function getMeta(db: SandboxDb, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

export function setMeta(db: SandboxDb, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    key,
    value,
  );
}

export function deleteMeta(db: SandboxDb, key: string): void {
  db.prepare('DELETE FROM meta WHERE key = ?').run(key);
}

/** Writes a file so that a reader sees either the old or the new content, never half. */
export function writeFileAtomic(file: string, content: string, mode = 0o644): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content, { mode });
  fs.renameSync(tmp, file);
}
