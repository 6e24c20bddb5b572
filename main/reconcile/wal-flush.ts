// Writes a long run's WAL out to disk in the background, range by range, so that the run's last commit
// (synced, and with it every range before it) has little left to flush: a writer on synchronous NORMAL
// commits each range without waiting for the disk, and a million rows leave ~100 MB of WAL in the page
// cache that the final sync would otherwise write out while the caller waits. Syncing the file through
// a descriptor of our own writes out the same pages; it proves nothing (the final commit still syncs),
// it only moves the disk's work to a time when the CPU is busy with the next range.
import fs from 'node:fs';

export interface WalFlusher {
  /** Starts one background sync of the WAL file, unless one is under way. */
  kick(): void;
  /** Waits for a sync under way and closes the descriptor. */
  close(): Promise<void>;
}

export function walFlusher(dbFile: string): WalFlusher {
  let fd: number | null = null;
  try {
    fd = fs.openSync(`${dbFile}-wal`, 'r');
  } catch {
    fd = null; // an in-memory database, or not in WAL mode: nothing to flush ahead
  }
  let inFlight: Promise<void> | null = null;
  return {
    kick() {
      if (fd === null || inFlight) return;
      const f = fd;
      inFlight = new Promise((resolve) =>
        fs.fdatasync(f, () => {
          inFlight = null;
          resolve();
        }),
      );
    },
    async close() {
      await inFlight;
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}
