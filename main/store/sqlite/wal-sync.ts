// The fdatasync of a database's WAL file, on libuv's thread pool instead of inside a commit. A sync
// through a descriptor of our own flushes the same file: fsync works on the file, not the descriptor.
//
// Used to write a long run's WAL out ahead of its last commit (walFlusher), and by the snapshot copy.
// (The callback store tried committing groups with synchronous NORMAL and answering after syncWal; it was
// slower: callbacks/callback-store.ts says by how much.)
import fs from 'node:fs';

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
