// The fdatasync of a database's WAL file, on libuv's thread pool instead of inside a commit. A sync
// through a descriptor of our own flushes the same file: fsync works on the file, not the descriptor.
//
// Used to write a long run's WAL out ahead of its last commit (walFlusher), and by the callback store
// (callbacks/callback-store.ts): a group commits with synchronous NORMAL and is answered only after
// syncWal, which leaves on disk what FULL leaves, while the main thread handles the next group. (Measured
// earlier with no bound on groups in flight, it made groups smaller and cost more than it saved; with two
// in flight, one group's sync overlaps the next group's work.)
import fs from 'node:fs';
import type { Db } from './connection.js';

/** Whether each connection is in WAL mode, read once (its journal mode is set when it is opened). */
const walMode = new WeakMap<Db, boolean>();

function inWalMode(db: Db): boolean {
  let wal = walMode.get(db);
  if (wal === undefined) {
    wal = !db.memory && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
    walMode.set(db, wal);
  }
  return wal;
}

/**
 * Runs `write` (which commits one transaction) with its sync left to the caller, when that is possible:
 * on a WAL database whose connection is at synchronous FULL and not inside a transaction, the commit runs
 * under NORMAL (its WAL frames written, not synced) and `deferred` is true: the caller must `syncWal`
 * before treating it as durable. Otherwise the commit syncs as the connection is set and `deferred` is
 * false. A connection set below FULL on purpose keeps its own setting; every later write gets FULL back.
 */
export function commitWithDeferredSync<T>(db: Db, write: () => T): { value: T; deferred: boolean } {
  if (!inWalMode(db) || db.inTransaction) return { value: write(), deferred: false };
  const before = db.pragma('synchronous', { simple: true }) as number;
  if (before < 2) return { value: write(), deferred: false };
  db.pragma('synchronous = NORMAL');
  try {
    return { value: write(), deferred: true };
  } finally {
    db.pragma('synchronous = FULL');
  }
}

/**
 * Syncs `dbFile`'s WAL (everything committed before the call). Rejects when it cannot: there is no WAL
 * file (not in WAL mode, or the last connection closed it), or the disk reports an error.
 */
export async function syncWal(dbFile: string): Promise<void> {
  // Opened for each sync: while a connection is open SQLite never deletes the WAL file (it may
  // truncate it: the same file).
  const fh = await fs.promises.open(`${dbFile}-wal`, 'r+');
  try {
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

export interface WalFlusher {
  /** Starts one background sync of the WAL, unless one is under way. */
  kick(): void;
  /** Waits for a sync under way; kick() does nothing afterwards. */
  close(): Promise<void>;
}

/**
 * Writes a long run's WAL out in the background, step by step, so that the run's last commit (synced,
 * and with it every step before it) has little left to flush: a writer on synchronous NORMAL leaves
 * ~100 MB of WAL in the page cache per million rows, which the final sync would otherwise write out while
 * the caller waits. It proves nothing (the final commit still syncs); it moves the disk's work to a time
 * when the CPU is busy with the next step. A database without a WAL file has nothing to flush ahead.
 */
export function walFlusher(dbFile: string): WalFlusher {
  let inFlight: Promise<void> | null = null;
  let closed = false;
  return {
    kick() {
      if (closed || inFlight) return;
      inFlight = syncWal(dbFile)
        .catch(() => undefined)
        .finally(() => (inFlight = null));
    },
    async close() {
      closed = true;
      await inFlight;
    },
  };
}
