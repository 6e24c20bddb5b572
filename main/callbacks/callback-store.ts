// Where the receiver commits a group of deliveries: the seam between the receiver (HTTP, limits, group
// commit, security log) and a store. Each store verifies with the same pure step (ingest.ts
// verifyCallback) and writes the verified ones in ONE commit: the desktop's SQLite (here) or the team's
// PostgreSQL (main/serve/team-callback-store.ts).
import type { Db } from '../store/db.js';
import { syncWal } from '../store/wal-sync.js';
import { reconcileOnceAfter } from '../reconcile/incremental.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import { appendEventInTransaction } from '../collections/events.js';
import { storeVerifiedCallback, verifyCallback, type IngestInput, type IngestOutcome } from './ingest.js';

export interface Delivery {
  input: IngestInput;
  /** When it arrived (ms since the epoch). */
  now: number;
}

export interface CallbackStore {
  /**
   * Verifies and stores a group in one commit; the outcomes in the group's order. Throws when that
   * commit failed: then nothing of the group is stored (the receiver retries each delivery alone).
   */
  commitGroup(group: readonly Delivery[], keys: SignatureKeys): IngestOutcome[] | Promise<IngestOutcome[]>;
  /** True for an error that means the store cannot be reached now: answered 503, so the sender retries. */
  isUnavailable?(err: unknown): boolean;
  /**
   * Most groups committing at once (default: no bound). For a store whose commits serialise anyway:
   * deliveries that arrive meanwhile gather into the next group rather than queueing commits of their own.
   */
  maxCommitsInFlight?: number;
}

/** The desktop's store: callback events into SQLite, each collection reconciled once per group, in the same commit. */
export function sqliteCallbackStore(db: Db): CallbackStore {
  const walSync = walSyncOf(db);
  return {
    commitGroup: (group, keys) => {
      // Verified before the write lock is taken: it touches no database.
      const verified = group.map((d) => verifyCallback(d.input, keys));
      // One transaction and no savepoint per event: if any event throws, the whole group is rolled back
      // (and the receiver stores each delivery alone), so a half-stored event is never committed.
      const write = () =>
        reconcileOnceAfter(db, () =>
          verified.map((v, i): IngestOutcome => {
            if (v.result !== 'verified') return v;
            const d = group[i]!;
            return storeVerifiedCallback(db, v.callback, d.input.source, d.now, appendEventInTransaction);
          }),
        );
      if (!walSync || db.inTransaction) return write();
      const outcomes = walSync.commitWithoutSync(write);
      // Answered only once the WAL holding this commit is on disk.
      return walSync.sync().then(() => outcomes);
    },
  };
}

/**
 * The group's commit without its fsync on the main thread, and that fsync on libuv's thread pool
 * (store/wal-sync.ts says why the result on disk is FULL's). A delivery is answered only after it.
 * Meanwhile the main thread stores the next group instead of waiting for the disk; its frames come after
 * this group's in the WAL, so a crash before its own sync loses (at most) that later group, which was not
 * answered either. Any other write on this connection runs with FULL again (the level is lowered only
 * around the group's commit, which nothing interleaves: better-sqlite3 is synchronous), and its fsync
 * covers the group's frames too. An error of the sync fails the group: none of it is answered 2xx.
 *
 * Null (the group commits with its own fsync, as before) unless the connection is a file database in
 * WAL mode with synchronous FULL or EXTRA.
 */
function walSyncOf(db: Db): { commitWithoutSync<T>(write: () => T): T; sync(): Promise<void> } | null {
  if (db.memory || !db.name) return null;
  const mode = db.pragma('journal_mode', { simple: true }) as string;
  const level = db.pragma('synchronous', { simple: true }) as number;
  if (mode !== 'wal' || level < 2) return null;
  const lower = db.prepare('PRAGMA synchronous = NORMAL');
  const restore = db.prepare(`PRAGMA synchronous = ${level}`);
  return {
    commitWithoutSync(write) {
      lower.run();
      try {
        return write();
      } finally {
        restore.run();
      }
    },
    sync: () => syncWal(db.name),
  };
}
