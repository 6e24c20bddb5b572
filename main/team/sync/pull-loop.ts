// The pull loop: everything after the last seq this desk applied, page after page (up to 1,000 events, the
// next page fetched while this one is applied), each page in batches: a batch is checked against the hash
// chain as a whole, then applied as a set in one SQLite transaction with its seq, its witness journal and
// the chain head it reaches (apply.ts). A batch holds as many events as take about `sliceMs` of CPU to
// apply (learnt from the last batches), so a desk draining a backlog lets the event loop run between two
// (a window's IPC call, a charge) and a close stops it between two, each one committed whole. A desk
// following a busy team pulls one page, one batch, per beat (scheduler.ts). A page is not cut to the
// batch's size: each round trip to PostgreSQL waits for the cores on a busy machine, so a page per batch
// makes a backlog's drain much slower (docs/benchmarks.md, "Following a busy team").
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import type { Ledger } from '../../collections/ledger.js';
import { lastSeq } from '../../store/sqlite/team/sync-state.js';
import { newestSeq, pullPageRaw, type ChainedEvent, type PullResult } from '../events.js';
import type { EventVerifier } from '../evidence.js';
import { ChainMovedError } from '../chain.js';
import { applyEvents } from './apply.js';
import type { ChainWatch } from './chain-watch.js';
import type { CheckedBatch } from './chain-check.js';
import type { RollbackWatch } from './rollback.js';
import type { SyncNotices } from './notices.js';
import type { SyncStatus } from './status.js';

/** A batch holds the main thread about this long (issue 23: never more than ~50 ms). */
export const SLICE_MS = 25;
/** The most events a page (a batch) holds, whatever the time allows. */
export const PAGE = 1_000;

export interface BatchSizer {
  /** Events for the next batch. */
  size(): number;
  /** The last batch applied `n` events in `ms` of CPU. */
  took(n: number, ms: number): void;
}

/**
 * Sizes batches so one takes about `targetMs`: starts small, at most doubles from one batch to the next
 * (a cold cache or a busy machine is not taken for the rate), and shrinks at once when one ran long.
 */
export function sliceSizer(targetMs: number, most: number, first = 50): BatchSizer {
  let n = Math.min(first, most);
  return {
    size: () => n,
    took(done, ms) {
      if (done <= 0) return;
      const fits = Math.floor((done * targetMs) / Math.max(ms, 0.1));
      n = Math.max(1, Math.min(most, fits, done * 2));
    },
  };
}

/** Lets the event loop run what waited (I/O, timers, an IPC call) before the next batch. */
const yieldToEventLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

export interface PullLoopOptions {
  pool: pg.Pool;
  db: Db;
  /** What the pulled batches are appended through. */
  ledger: Ledger;
  now: () => number;
  /** This desk's login: the witness journal keeps its own events whole. */
  login: string | null;
  chain: ChainWatch;
  rollback: Pick<RollbackWatch, 'wentBack' | 'settle'>;
  status: SyncStatus;
  notices: SyncNotices;
  /** The signature check with the keys as they are now (read once per batch). */
  verifier: () => EventVerifier | undefined;
  stopped: () => boolean;
  sizer: BatchSizer;
  /** Events per page pulled from PostgreSQL (a page and the next one, fetched meanwhile, are all a desk holds). */
  pageSize: number;
  /** While a backlog drains, the status bar hears how far it is once a beat, or once this many events (a page of old). */
  beatMs: number;
  progressEvery: number;
}

/** Checks a batch against the chain and applies it as a set, its head kept in its transaction. */
async function applyBatch(o: PullLoopOptions, events: readonly ChainedEvent[]): Promise<number> {
  // Not applied unless it continues the chain this desk verified (throws ChainBrokenError).
  const checked: CheckedBatch = await o.chain.checkPulled(events, lastSeq(o.db, 'events'));
  const started = process.cpuUsage();
  const r = applyEvents(o.db, events, events[events.length - 1]!.seq, o.now(), {
    ledger: o.ledger,
    verify: o.verifier(),
    witness: { login: o.login },
    alsoWrite: () => o.chain.keep(checked),
  });
  o.chain.applied(checked);
  // Sized by the CPU time it took, not the wall time: on a busy machine the wall time also counts the
  // time other processes had the cores, and batches sized by it would shrink to a few events.
  const cpu = process.cpuUsage(started);
  o.sizer.took(events.length, (cpu.user + cpu.system) / 1000);
  o.notices.applied(r.changed, r.orphans);
  return r.applied;
}

/** Pulls and applies every event after the desk's seq; resolves with how many it stored. */
export async function pullEvents(o: PullLoopOptions): Promise<number> {
  const { pool, db } = o;
  const fetch = (after: number): Promise<PullResult> => {
    const p = pullPageRaw(pool, after, o.pageSize);
    p.catch(() => undefined); // awaited below; a prefetch abandoned by a failed batch must not go unhandled
    return p;
  };
  let next = fetch(lastSeq(db, 'events'));
  let total = 0;
  /** The record went back under this pull (at most once per pull): the desk re-based, and pulls from there. */
  let rebased = false;
  // A desk that needs more than one batch says how far behind it is while it drains ("N events behind").
  let newest: number | null = null;
  let toldAt = -Infinity;
  let sinceTold = 0;
  // The verified head moves with each batch: told with the pull's end (or a drain's progress), not after
  // each batch; an alarm at once.
  o.chain.draining(true);
  try {
    for (;;) {
      const page = await next;
      o.status.reached();
      if (o.stopped() || !page.events.length) break;
      if (page.more) next = fetch(page.lastSeq);
      if (page.more && newest === null) newest = await newestSeq(pool, 'read how far the team record goes');
      let again = false;
      for (let i = 0; i < page.events.length && !o.stopped();) {
        const batch = page.events.slice(i, i + o.sizer.size());
        try {
          total += await applyBatch(o, batch);
        } catch (e) {
          // The record went back in time under this pull: put right, then pull from the new head.
          if (!(e instanceof ChainMovedError) || rebased || !(await o.rollback.wentBack().catch(() => false))) throw e;
          rebased = again = true;
          total += await o.chain.starting(o.rollback.settle(true));
          o.status.set({ lastSeq: lastSeq(db, 'events') });
          next = fetch(lastSeq(db, 'events'));
          break;
        }
        i += batch.length;
        const seq = batch[batch.length - 1]!.seq;
        if (i >= page.events.length && !page.more) {
          o.status.note({ lastSeq: seq });
          break;
        }
        newest ??= page.lastSeq;
        const progress = { lastSeq: seq, catchingUp: { copiedSeq: seq, totalSeq: Math.max(newest, seq) } };
        // The status bar is told once a beat or once a page's worth of events, not after every batch.
        sinceTold += batch.length;
        if (performance.now() - toldAt >= o.beatMs || sinceTold >= o.progressEvery) {
          toldAt = performance.now();
          sinceTold = 0;
          o.status.set(progress);
        } else o.status.note(progress);
        // Each batch is committed; the event loop answers what waited (a window's IPC call, a charge).
        await yieldToEventLoop();
      }
      if (again && !o.stopped()) continue;
      if (!page.more || o.stopped()) break; // closing stops between batches: each one committed whole
    }
  } finally {
    o.chain.draining(false);
    if (o.status.get().catchingUp) o.status.set({ catchingUp: null });
  }
  return total;
}
