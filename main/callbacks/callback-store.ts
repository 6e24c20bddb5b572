// Where the receiver commits a group of deliveries: the seam between the receiver (HTTP, limits, group
// commit, security log) and a store. Each store verifies with the same pure step (ingest.ts
// verifyCallback) and writes the verified ones in ONE commit: the desktop's SQLite (here) or the team's
// PostgreSQL (main/serve/team-callback-store.ts).
import type { Db } from '../store/sqlite/connection.js';
import type { Ledger } from '../collections/ledger.js';
import type { SignatureKeys } from '../service/verify-callback.js';
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
   * `written`, when the store calls it, says the commit is made and what is left before the outcomes
   * (serve's journal) holds no commit slot: the receiver may send its next group meanwhile.
   */
  commitGroup(
    group: readonly Delivery[],
    keys: SignatureKeys,
    written?: () => void,
  ): IngestOutcome[] | Promise<IngestOutcome[]>;
  /** True for an error that means the store cannot be reached now: answered 503, so the sender retries. */
  isUnavailable?(err: unknown): boolean;
  /**
   * Most groups committing at once (default: no bound), from the group's start to its outcomes or to
   * its `written`. For a store whose commits serialise anyway: deliveries that arrive meanwhile gather
   * into the next group rather than queueing commits of their own.
   */
  maxCommitsInFlight?: number;
}

/**
 * The desktop's store: callback events into SQLite, each collection reconciled once per group, in the
 * same commit, which syncs (synchronous=FULL) before any delivery of the group is answered.
 *
 * The commit itself syncs rather than committing with synchronous=NORMAL and answering after an
 * fdatasync of the WAL on libuv's thread pool (two groups in flight): that was slower on a quiet machine,
 * 2,538-3,077 callbacks/s against 3,088-3,876/s in alternating rounds of test/bench/ingest.ts, because
 * the groups shrank from about 26 deliveries to 18, so commits grew by a third.
 */
export function sqliteCallbackStore(db: Db, ledger: Ledger): CallbackStore {
  return {
    commitGroup: (group, keys) => {
      // Verified before the write lock is taken: it touches no database.
      const verified = group.map((d) => verifyCallback(d.input, keys));
      // One transaction and no savepoint per event: if any event throws, the whole group is rolled back
      // (and the receiver stores each delivery alone), so a half-stored event is never committed.
      return ledger.batch(db, () =>
        verified.map((v, i): IngestOutcome => {
          if (v.result !== 'verified') return v;
          const d = group[i]!;
          return storeVerifiedCallback(ledger, db, v.callback, d.input.source, d.now, 'caller');
        }),
      );
    },
  };
}
