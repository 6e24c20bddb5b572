// Group commit for the callback receiver: deliveries that arrive within one event-loop turn (or
// groupCommitWindowMs) are stored in ONE transaction, and each is answered only after that commit. If
// anything in the group fails, the group is rolled back and every delivery is stored again on its own, so
// one bad delivery gets its 5xx and the others are still stored and answered 2xx. Where a group is
// committed is the store's business (callback-store.ts).
import type { SignatureKeys } from '../service/verify-callback.js';
import type { IngestInput, IngestOutcome } from './ingest.js';
import type { CallbackStore, Delivery } from './callback-store.js';

/** Deliveries handed to ingestion, commits made for them, and the largest group in one commit. */
export interface CommitStats {
  deliveries: number;
  commits: number;
  largestGroup: number;
  /** Groups that failed as a whole and were stored one by one instead. */
  fallbacks: number;
}

/** What became of one delivery: its outcome once committed, or why it was not stored. */
export type Delivered = { outcome: IngestOutcome } | { error: unknown };

export interface GroupCommitOptions {
  getKeys: () => SignatureKeys | Promise<SignatureKeys>;
  /**
   * How long the first delivery of a group waits for others to share its commit: 0 (default) = the
   * rest of this event-loop turn (what has already arrived), no added latency.
   */
  groupCommitWindowMs?: number;
  /** Most deliveries in one commit (default 256). */
  maxGroup?: number;
  /** 'group': one log line per commit with its references (receiver.ts ReceiverOptions.logStored). */
  logStored?: 'each' | 'group';
  logger?: { info(obj: object, msg?: string): void };
}

export interface GroupCommitter {
  /** Queues a delivery for the next group; resolves once that group is committed (or failed). */
  submit(input: IngestInput, now: number): Promise<Delivered>;
  /** Deliveries received and waiting for their group's commit. */
  waiting(): number;
  /** Stores whatever is waiting now (closing). */
  drain(): Promise<void>;
}

interface Pending extends Delivery {
  resolve: (r: Delivered) => void;
}

/**
 * The longest a group waits for the rest of a burst (see schedule() below): a quarter of the last
 * commit's time, so waiting never costs more than a fraction of what a commit saved costs, and at most
 * GATHER_MAX_MS.
 */
const GATHER_SHARE = 0.25;

/** The smallest group the deliveries in the receiver are shared out into (groupCommitter's share). */
const SHARED_GROUP_MIN = 48;
const GATHER_MAX_MS = 4;

/**
 * A group whose commit failed as a whole: answered all with the error when the store is down (each
 * would fail the same way), else stored one delivery at a time so one failure costs only its own.
 */
async function afterFailedGroup(
  store: CallbackStore,
  group: readonly Pending[],
  keys: SignatureKeys,
  groupError: unknown,
  stats: CommitStats,
): Promise<Delivered[]> {
  if (store.isUnavailable?.(groupError)) return group.map(() => ({ error: groupError }));
  if (group.length > 1) stats.fallbacks += 1;
  const results: Delivered[] = [];
  for (const p of group) {
    try {
      const [outcome] = await store.commitGroup([p], keys);
      stats.commits += 1;
      results.push({ outcome: outcome! });
    } catch (error) {
      results.push({ error });
    }
  }
  stats.largestGroup = Math.max(stats.largestGroup, 1);
  return results;
}

/** One line for the group's stored callbacks (and how many were repeats); refusals go to the security log. */
function logGroup(logger: GroupCommitOptions['logger'], results: readonly Delivered[]): void {
  const references: string[] = [];
  let duplicates = 0;
  for (const r of results) {
    if (!('outcome' in r)) continue;
    if (r.outcome.result === 'imported') references.push(r.outcome.reference);
    else if (r.outcome.result === 'duplicate') duplicates += 1;
  }
  if (references.length || duplicates)
    logger?.info({ stored: references.length, duplicates, references }, 'callbacks stored');
}

// How many deliveries a group takes. With a bound on commits in flight, a group takes its share of the
// deliveries in the receiver, not all of them: a sender that keeps a fixed number of deliveries in flight
// (the service, a proxy's connections) would otherwise put them all in one group, and while that group
// commits, is journalled and answered, no other would be ready for the store (serve: the events' write turn
// idle half the time, measured). Shared out, one group commits while the other is verified and answered.
// Only into groups of SHARED_GROUP_MIN or more: under that, a group's own costs (its round trip, its fsync,
// its journal transaction) outweigh what the overlap gains (serve: 250-325 µs of CPU a callback in groups
// of 26-47 against 193-221 in groups of 51-100), and two serve instances share a burst already.
function groupShare(inReceiver: number, maxInFlight: number): number {
  return Number.isFinite(maxInFlight) && inReceiver >= SHARED_GROUP_MIN * maxInFlight
    ? Math.ceil(inReceiver / maxInFlight)
    : Infinity;
}

/**
 * Stores one group in one commit and answers each delivery with its outcome (nothing before the commit
 * returns); a group whose commit failed goes to afterFailedGroup. Returns the whole commit's time (serve's
 * journal included: the gathering's measure, groupCommitter's schedule), or null when it did not commit.
 */
async function commitGroup(
  opts: GroupCommitOptions,
  store: CallbackStore,
  stats: CommitStats,
  group: Pending[],
  written: () => void,
): Promise<number | null> {
  let keys: SignatureKeys;
  try {
    keys = await opts.getKeys();
  } catch (error) {
    for (const p of group) p.resolve({ error });
    return null;
  }
  stats.deliveries += group.length;
  let results: Delivered[];
  let ms: number | null = null;
  try {
    const t0 = performance.now();
    results = (await store.commitGroup(group, keys, written)).map((outcome) => ({ outcome }));
    ms = performance.now() - t0;
    stats.commits += 1;
    stats.largestGroup = Math.max(stats.largestGroup, group.length);
  } catch (groupError) {
    results = await afterFailedGroup(store, group, keys, groupError, stats);
  }
  if (opts.logStored === 'group') logGroup(opts.logger, results);
  group.forEach((p, i) => p.resolve(results[i]!));
  return ms;
}

/** Collects deliveries and stores each group in one transaction (see the top of this file). */
export function groupCommitter(opts: GroupCommitOptions, store: CallbackStore, stats: CommitStats): GroupCommitter {
  const maxGroup = Math.max(1, opts.maxGroup ?? 256);
  const windowMs = Math.max(0, opts.groupCommitWindowMs ?? 0);
  const queue: Pending[] = [];
  let scheduled: { cancel(): void; gathering: boolean } | null = null;
  // Size of the last group: under steady load, about how many deliveries are in flight.
  let lastGroup = 1;
  let lastCommitMs = 0;
  // A store that bounds its commits in flight (store.maxCommitsInFlight) lets the next group gather
  // while those commit, instead of queueing ever smaller commits behind each other.
  const maxInFlight = store.maxCommitsInFlight ?? Infinity;
  // Deliveries in groups not answered yet.
  let inGroups = 0;
  const share = () => groupShare(queue.length + inGroups, maxInFlight);

  const atNextTurn = () => {
    const t = setImmediate(() => void flush());
    scheduled = { cancel: () => clearImmediate(t), gathering: false };
  };
  const schedule = () => {
    if (scheduled) {
      // Gathering and the burst is all here: store it at the end of this turn.
      if (scheduled.gathering && queue.length >= Math.min(lastGroup, share())) {
        scheduled.cancel();
        atNextTurn();
      }
      return;
    }
    if (windowMs > 0) {
      const t = setTimeout(() => void flush(), windowMs);
      scheduled = { cancel: () => clearTimeout(t), gathering: false };
      return;
    }
    // Each commit costs an fsync, and nothing is read from the sockets while one runs. Under load the
    // service answers each reply with its next delivery, and those arrive over a few loop turns: a
    // group cut at the first turn leaves the stragglers a commit of their own (groups alternate big
    // and small). So while fewer than the last group are waiting, wait for the rest (a timer, no
    // spinning) for a bounded time; a lone delivery (lastGroup 1) is stored at the next turn as before.
    const gatherMs = Math.min(GATHER_MAX_MS, lastCommitMs * GATHER_SHARE);
    if (queue.length >= Math.min(lastGroup, share()) || gatherMs < 0.5) return atNextTurn();
    const t = setTimeout(() => void flush(), gatherMs);
    scheduled = { cancel: () => clearTimeout(t), gathering: true };
  };

  // Groups holding a commit slot (until their outcomes, or until the store says the commit is written),
  // and groups not answered yet (what drain waits for).
  let committing = 0;
  let unanswered = 0;
  async function flush(): Promise<void> {
    scheduled?.cancel();
    scheduled = null;
    if (committing >= maxInFlight) return; // a commit in flight schedules the next group when it ends
    const group = queue.splice(0, Math.min(maxGroup, share()));
    if (group.length === 0) return;
    lastGroup = group.length;
    committing += 1;
    unanswered += 1;
    inGroups += group.length;
    let holding = true;
    const release = () => {
      if (!holding) return;
      holding = false;
      committing -= 1;
      if (queue.length) schedule();
    };
    if (queue.length && committing < maxInFlight) schedule();
    try {
      const ms = await commitGroup(opts, store, stats, group, release);
      if (ms !== null) lastCommitMs = ms;
    } finally {
      unanswered -= 1;
      inGroups -= group.length;
      release();
    }
  }

  return {
    submit(input, now) {
      return new Promise((resolve) => {
        queue.push({ input, now, resolve });
        if (queue.length >= maxGroup) void flush();
        else schedule();
      });
    },
    waiting: () => queue.length,
    async drain(): Promise<void> {
      while (queue.length || unanswered > 0) {
        if (committing >= maxInFlight || (!queue.length && unanswered > 0)) await new Promise((r) => setTimeout(r, 5));
        else await flush();
      }
    },
  };
}
