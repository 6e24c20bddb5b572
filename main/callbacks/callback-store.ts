// Where the receiver commits a group of deliveries: the seam between the receiver (HTTP, limits, group
// commit, security log) and a store. Each store verifies with the same pure step (ingest.ts
// verifyCallback) and writes the verified ones in ONE commit: the desktop's SQLite (here) or the team's
// PostgreSQL (main/serve/team-callback-store.ts).
import type { Db } from '../store/sqlite/connection.js';
import { reconcileOnceAfter } from '../reconcile/incremental.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import { storeVerifiedCallback, verifyCallback, type IngestInput, type IngestOutcome } from './ingest.js';
import { syncWal } from '../store/sqlite/wal-sync.js';

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

/** How a group's commit is made durable before its deliveries are answered (a test injects a fault). */
export interface SqliteStoreOptions {
  /** fdatasyncs the database's WAL (store/sqlite/wal-sync.ts); rejects when it cannot. */
  syncWal?: (dbFile: string) => Promise<void>;
}

/**
 * The desktop's store: callback events into SQLite, each collection reconciled once per group, in the
 * same commit.
 *
 * Durable before answered, without the main thread waiting for the disk: on a WAL database the group
 * commits with synchronous=NORMAL (its WAL frames written, not yet synced) and the WAL is then fdatasynced
 * on libuv's thread pool; the group's outcomes (so its 2xx answers) are released only after that sync, so
 * what a 2xx acknowledges is on disk as under FULL. Meanwhile the main thread reads and verifies the next
 * deliveries, which gather into the next group: at most two groups are in flight (maxCommitsInFlight), so
 * one group's sync overlaps the next group's HTTP, verification and SQLite work, and deliveries that
 * arrive meanwhile gather into a group instead of each paying a commit of its own. Every other write
 * on the connection keeps FULL (the pragma is set back after the group). A sync that fails rejects the
 * group, which the receiver then answers 5xx (each delivery alone is a duplicate of the committed one,
 * and a duplicate too is answered 2xx only after a sync that succeeds), so the service sends it again.
 */
export function sqliteCallbackStore(db: Db, o: SqliteStoreOptions = {}): CallbackStore {
  const sync = o.syncWal ?? syncWal;
  let wal: boolean | undefined;
  const onWal = () =>
    (wal ??= !db.memory && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal');
  return {
    maxCommitsInFlight: 2,
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
            return storeVerifiedCallback(db, v.callback, d.input.source, d.now, 'caller');
          }),
        );
      if (!onWal() || db.inTransaction) return write();
      const before = db.pragma('synchronous', { simple: true }) as number;
      if (before < 2) return write(); // a connection set below FULL on purpose keeps its own setting
      db.pragma('synchronous = NORMAL');
      let outcomes: IngestOutcome[];
      try {
        outcomes = write();
      } finally {
        db.pragma('synchronous = FULL');
      }
      // A duplicate too: the delivery it repeats may be the one whose sync failed a moment ago.
      const stored = outcomes.some((x) => x.result === 'imported' || x.result === 'duplicate');
      return stored ? sync(db.name).then(() => outcomes) : outcomes;
    },
  };
}
