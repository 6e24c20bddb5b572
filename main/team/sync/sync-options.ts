// What a team sync is given (TeamSyncOptions) and what it offers (TeamSync): pull.ts composes it.
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import type { Ledger } from '../../collections/ledger.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import type { ChangedCollection } from './apply.js';
import type { ChainState } from './chain-check.js';
import type { TeamSyncStatus } from './status.js';
import type { OwnGuards } from '../own-guards.js';

export interface TeamSync {
  /** Pulls and applies everything after the last seq seen; resolves with how many events were applied. */
  pullNow(): Promise<number>;
  status(): TeamSyncStatus;
  /** Re-checks the hash chain of everything this desk holds now (as the periodic check does). */
  recheckChain(): Promise<ChainState>;
  /** The background re-check of signatures taken from a snapshot (signature-check.ts): runs it, or the one running. */
  checkSignatures(): Promise<'done' | 'stopped' | 'none'>;
  onStatus(cb: (s: TeamSyncStatus) => void): () => void;
  /**
   * Whether a pull has looked at the record (has it gone back from what this desk verified?) since the
   * sync started or the database was last away. Until then this desk's outbox waits: after a failover an
   * answer sent first would land before its lost intent is put back (session.ts).
   */
  recordLooked(): boolean;
  /** The database was away (the push met it first): the next pull looks at the record before anything. */
  lookFirst(): void;
  close(): Promise<void>;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface TeamSyncOptions {
  pool: pg.Pool;
  db: Db;
  /** The process's ledger (its composition root's): every pulled event is stored through it. */
  ledger: Ledger;
  clock: Clock;
  logger: Logger;
  onApplied?: (changed: ChangedCollection[]) => void;
  /**
   * A pulled slice stored `stored` events with no collection (orphan callbacks, or their resolutions): told
   * apart from onApplied, which names collections, so the screens listing orphans read them again.
   */
  onOrphans?: (stored: number) => void;
  /**
   * A bulk start finished: `applied` events were copied at once (onApplied is not called for them, it
   * would be a message per collection), so whoever shows collections reads them again. `from`: the
   * team's verified snapshot, or a replay of the events.
   */
  onCopied?: (applied: number, from: 'snapshot' | 'replay') => void;
  /** Balance snapshots (`changed`: how many) or a newer payment options list were applied. */
  onPolled?: (what: 'balances' | 'options', changed: number) => void;
  /**
   * The team database announced a change to this operator's row (team migration 14), heard on the
   * listener's connection; null when changes may have gone unheard (the listener connected again).
   */
  onOperatorChanged?: (login: string | null) => void;
  /** The periodic pull that covers a lost notification (default 5 s). */
  pollEveryMs?: number;
  /**
   * The periodic pull while notifications do not arrive (sync/notify-probe.ts; default 1 s): events still
   * reach this desk within about two seconds of their commit.
   */
  pollWithoutNotificationsMs?: number;
  /**
   * The beat (scheduler.ts, default 250 ms): pulls woken by notifications are at least this far apart,
   * those in between share the next; the screens hear of a draining backlog at most this often.
   */
  gatherMs?: number;
  /** The most events a page pulled from PostgreSQL holds (default 1,000); each page is one batch. */
  batchSize?: number;
  /**
   * How long one batch of pulled events may hold the main thread (default 25 ms): each batch is one
   * SQLite transaction that records its last seq, then the event loop runs (IPC calls, a charge) before
   * the next. The count per batch follows from how long the previous ones took.
   */
  sliceMs?: number;
  /** Events per page and per transaction of a new desktop's bulk start (default and most 50,000). */
  bulkChunk?: number;
  /** false: an empty desktop catches up through the incremental path too (the equality test's reference). */
  bulkStart?: boolean;
  /** false: a new desktop replays the events even when the team has a snapshot (snapshot/start.ts). */
  snapshots?: boolean;
  /** How often the desk re-checks the hash chain of what it holds (default 5 minutes; 0: only at sign-in). */
  chainRecheckEveryMs?: number;
  /**
   * The keys a team desk checks every signed event with, itself (team/evidence.ts): pulled, replayed or
   * in a snapshot. None: the writers' word is taken (tests of the sync mechanics only).
   */
  evidenceKeys?: () => SignatureKeys;
  /**
   * Settles once those keys are loaded: nothing is applied before, since an event checked without them
   * would be stored unverified for good.
   */
  evidenceReady?: () => Promise<unknown>;
  /** When the record went back in time: how long before this desk puts back other writers' signed events (rollback.ts; default 3 s). */
  restoreOthersAfterMs?: number;
  /**
   * The guard fingerprints of this desk's own charges within the repeat window (own-guards.ts): when the
   * record went back in time they go back with their intents, so the repeat question still knows the cards.
   */
  ownGuards?: OwnGuards;
  /** How many days the desk keeps what it witnessed of the record (witness.ts; default 14). */
  witnessDays?: number;
}
