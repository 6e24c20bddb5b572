// One full pull, as the scheduler runs it: the checks before anything is applied (the evidence keys
// loaded, the database this desk's team's, the desk started from the record: start.ts; the record not gone
// back in time: rollback.ts), the events (pull-loop.ts), then what follows them: the lost list, the
// witness journal's horizon, this desk's own events folded again in the record's order (refold.ts), and
// the balance snapshots and payment options pulled: by every pull but one only notifications asked for,
// which reads them at most once a POLLS_EVERY_MS. No notification says a snapshot or a list is new (serve's
// poller writes them every few minutes), so a pull woken by new events has no reason of its own to read
// them, and a desk following a busy team pulls four times a second: two round trips to PostgreSQL each
// time, for nothing new (bench:follow, docs/benchmarks.md). An idle desk reads them with its periodic
// pull, as before; a busy one at least once a second.
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import type { PaymentOption } from '../../service/types.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import { lastSeq } from '../../store/sqlite/team/sync-state.js';
import { collectionStatuses } from '../../store/sqlite/team/applied-events.js';
import { selectBalanceSnapshotsAfter } from '../../store/pg/balance-snapshots.js';
import { selectNewestPaymentOptionList } from '../../store/pg/payment-option-lists.js';
import { translatePgError } from '../errors.js';
import { ChainBrokenError } from '../chain.js';
import { poolLogin, toSafeInteger } from '../pool.js';
import { applyPaymentOptions, applySnapshots, type TeamSnapshot } from './apply.js';
import type { ChainWatch } from './chain-watch.js';
import { pullEvents, type PullLoopOptions } from './pull-loop.js';
import { refoldMarked } from './refold.js';
import type { RollbackWatch } from './rollback.js';
import type { SignatureWatch } from './signature-watch.js';
import { startDesk } from './start.js';
import { pruneWitness } from './witness.js';
import { checkWorkspace } from './workspace.js';
import type { PullReason } from './scheduler.js';

/** A pull woken by notifications reads the balance snapshots and payment options at most this often. */
export const POLLS_EVERY_MS = 1_000;

export interface PullOptions extends Omit<PullLoopOptions, 'rollback' | 'now'> {
  clock: Clock;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  chain: ChainWatch;
  rollback: RollbackWatch;
  signatures: SignatureWatch;
  keys: (() => SignatureKeys) | undefined;
  evidenceReady?: (() => Promise<unknown>) | undefined;
  /** Settles when the sync closes: what a pull waits for that is not its own work gives way to it. */
  closing: Promise<void>;
  start: { bulkStart?: boolean | undefined; snapshots?: boolean | undefined; bulkChunk?: number | undefined };
  /** Events per page of the balances poll (the events' page is the sizer's). */
  pollPage: number;
  witnessDays?: number | undefined;
}

export interface Pull {
  /** One full pull; `why.woken`: only notifications asked for it (the polls may wait, POLLS_EVERY_MS). */
  run(why?: PullReason): Promise<number>;
  /** Look at the record first at the next pull, whatever the time (back from an outage: a failover?). */
  lookFirst(): void;
  /** A look at the record is owed (since the start, or lookFirst): none done since. */
  owesLook(): boolean;
}

/** The looks at the record owed: one at the start, one more each time the database was away (ask). */
function owedLooks() {
  let asked = 1;
  let looked = 0;
  return {
    ask: () => void asked++,
    owed: () => looked < asked,
    /** A settle, forced while a look is owed; one asked for meanwhile (the push met an outage) stays owed. */
    async look(settle: (force: boolean) => Promise<number>): Promise<number> {
      const asking = asked;
      try {
        const n = await settle(looked < asking);
        looked = asking;
        return n;
      } catch (e) {
        // Looked, and found rewritten (the alarm's, not an outage's): that look is done.
        if (e instanceof ChainBrokenError) looked = asking;
        throw e;
      }
    },
  };
}

export function createPull(o: PullOptions): Pull {
  const { pool, db, clock } = o;
  let keysLoaded = false;
  let startChecked = false;
  const looks = owedLooks();
  let prunedAt = -Infinity;
  /** When the polls were last read (performance.now(): the beat's clock, never a test's fake one). */
  let polledAt = -Infinity;

  /** The desk's start (start.ts) before its first incremental pull; what it copied is told. */
  async function start(): Promise<number> {
    try {
      const r = await startDesk({
        pool,
        db,
        ledger: o.ledger,
        clock,
        logger: o.logger,
        ...o.start,
        onProgress: (p) => o.status.set({ catchingUp: p, lastSeq: 0 }),
        stopped: o.stopped,
        chain: o.chain,
        ...(o.keys ? { keys: o.keys, verify: o.verifier() } : {}),
      });
      startChecked = r !== null;
      if (!r) return 0;
      if (r.lastSeq !== null) o.status.set({ lastSeq: r.lastSeq });
      if (r.applied) o.notices.copied(r.applied, r.from);
      return r.applied;
    } finally {
      if (o.status.get().catchingUp) o.status.set({ catchingUp: null });
    }
  }

  async function run(why: PullReason = { woken: false }): Promise<number> {
    // A close does not wait for the keys (the workspace's first connection attempt may take a while).
    if (!keysLoaded && o.evidenceReady) await Promise.race([o.evidenceReady(), o.closing]);
    if (o.stopped()) return 0;
    keysLoaded = true;
    if (!startChecked) {
      await checkWorkspace(pool, db, clock.now());
      o.status.reached();
    }
    let total = startChecked ? 0 : await start();
    if (o.stopped()) return total;
    // Has the record gone back from what this desk verified? Put right before anything new is applied.
    total += await looks.look((force) => o.chain.starting(o.rollback.settle(force)));
    if (o.status.get().lastSeq !== lastSeq(db, 'events')) o.status.set({ lastSeq: lastSeq(db, 'events') }); // re-based
    if (o.stopped()) return total;
    o.signatures.resumeIfOwed();
    // The polls are read beside the events (their own round trips, on other connections of the pool), and
    // waited for after them: the batch's notice and the status that ends the pull then leave in one turn
    // of main's loop, one message to the window (ipc/push.ts STATUS_LAST_WAITS_MS).
    let polls: Promise<void> | null = null;
    if (!why.woken || performance.now() - polledAt >= POLLS_EVERY_MS) {
      polledAt = performance.now();
      polls = pullPolls(o, pool, db, clock.now);
      polls.catch(() => undefined); // awaited in after(); a pull that fails first leaves it unheard
    }
    total += await pullEvents({ ...o, now: () => clock.now() });
    if (o.stopped()) return total;
    await after(total, polls);
    return total;
  }

  async function after(applied: number, polls: Promise<void> | null): Promise<void> {
    if (applied) o.rollback.applied(); // the lost list drops what came back through another witness
    if (clock.now() - prunedAt > 3_600_000) {
      prunedAt = clock.now();
      pruneWitness(db, prunedAt, o.witnessDays);
    }
    // This desk's own events the record placed or keeps otherwise: folded again in the record's order.
    const refolded = await refoldMarked({
      pool,
      db,
      ledger: o.ledger,
      verify: o.verifier(),
      uptoSeq: lastSeq(db, 'events'),
    });
    if (refolded.ids.length) o.notices.applied(collectionStatuses(db, refolded.ids), 0);
    o.notices.flush();
    if (o.stopped()) return;
    await polls;
    // Loud, once the rest of the pull is done: the pull fails with the first one's error as it would have
    // (its status says so; an unreachable database stays "offline"), and each is tried on the next pull.
    if (refolded.failed[0]) throw refolded.failed[0].error;
  }

  return { run, lookFirst: looks.ask, owesLook: looks.owed };
}

/** Balance snapshots after the desk's, then the newest payment options list (each replaces the one before). */
async function pullPolls(o: Pick<PullOptions, 'notices' | 'pollPage'>, pool: pg.Pool, db: Db, now: () => number) {
  try {
    for (;;) {
      const rows = await selectBalanceSnapshotsAfter(pool, lastSeq(db, 'balance_snapshots'), o.pollPage);
      const snaps: TeamSnapshot[] = rows.map((s) => ({
        seq: toSafeInteger(s.seq, 'seq'),
        observedAt: s.observed_at.getTime(),
        balance: {
          currency: s.currency,
          walletType: s.wallet_type,
          availableMinor: toSafeInteger(s.available_minor, 'available_minor'),
          actualMinor: toSafeInteger(s.actual_minor, 'actual_minor'),
          unclearedMinor: toSafeInteger(s.uncleared_minor, 'uncleared_minor'),
          reserveMinor: toSafeInteger(s.reserve_minor, 'reserve_minor'),
        },
      }));
      const changed = applySnapshots(db, snaps, now());
      if (snaps.length) o.notices.polled('balances', changed);
      if (snaps.length < o.pollPage) break;
    }
    const row = await selectNewestPaymentOptionList(pool, lastSeq(db, 'payment_option_lists'));
    if (row) {
      const list = {
        seq: toSafeInteger(row.seq, 'seq'),
        fetchedAt: row.fetched_at.getTime(),
        options: row.options as PaymentOption[],
      };
      applyPaymentOptions(db, list, now());
      o.notices.polled('options', list.options.length);
    }
  } catch (e) {
    throw translatePgError(e, 'pull balances and payment options', poolLogin(pool));
  }
}
