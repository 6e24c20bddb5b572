// The pull side of the team record: everything after the last seq this desktop applied, in batches,
// into its SQLite (apply.ts), after the desk's start (start.ts). LISTEN wakes it at once; a periodic
// pull covers a lost notification; while PostgreSQL cannot be reached it says so, probes it every second
// (a failure the server answered backs off instead: team/reconnect.ts) and catches up.
// Pulls run one at a time: a pull asked for while one runs waits for it, and asks share one pull.
import type pg from 'pg';
import { doublingDelay, type Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import type { PaymentOption } from '../../service/types.js';
import { TeamDisabledError, TeamSignInError, TeamUnavailableError, translatePgError } from '../errors.js';
import { newestSeq as newestTeamSeq, pullSince, type PullResult } from '../events.js';
import { selectBalanceSnapshotsAfter } from '../../store/pg/balance-snapshots.js';
import { selectNewestPaymentOptionList } from '../../store/pg/payment-option-lists.js';
import { listen, type Listener } from '../listen.js';
import { poolLogin, poolTls, toSafeInteger } from '../pool.js';
import {
  applyEvents,
  applyPaymentOptions,
  applySnapshots,
  type ChangedCollection,
  type TeamSnapshot,
} from './apply.js';
import { lastSeq } from '../../store/sqlite/team/sync-state.js';
import { startDesk } from './start.js';
import { checkWorkspace, TeamWorkspaceMismatchError } from './workspace.js';
import { createChainCheck, type ChainState } from './chain-check.js';
import { runSignatureCheck, signatureCheckProgress, type SignatureCheckProgress } from './signature-check.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import { teamEventVerifier } from '../evidence.js';
import { ChainMovedError } from '../chain.js';
import { startRollbackWatch, type TeamRollbackState } from './rollback.js';
import { applyWitnessed, pruneWitness } from './witness.js';
import { refoldMarked } from './refold.js';
import { collectionStatuses } from '../../store/sqlite/team/applied-events.js';
import { isSilence, PROBE_EVERY_MS, reachabilityWatch } from '../reconnect.js';
import { notifyProbe } from './notify-probe.js';
import { PULL_WITHOUT_NOTIFICATIONS_MS, type TeamNotificationsState } from '../notify-words.shared.js';

export interface TeamSyncStatus {
  online: boolean;
  lastSeq: number;
  lastPullAt: number | null;
  error: string | null;
  /** The database refused this login's password (changed, or the operator disabled): the session must end. */
  signInRefused: boolean;
  /** ... because an admin disabled the operator (the database says so only once the password was right). */
  disabled: boolean;
  /** The database is another team's (sync/workspace.ts): nothing is applied, and nothing may be written. */
  wrongDatabase: boolean;
  /** While a new desktop copies the team history in bulk (sync/bulk.ts): how far, by seq; else null. */
  catchingUp: { copiedSeq: number; totalSeq: number } | null;
  /** The events' hash chain as this desk checked it (sync/chain-check.ts): verified through, or the alarm. */
  chain: ChainState;
  /** While a new desk re-checks the signatures it took from a snapshot (sync/signature-check.ts); else null. */
  signatures: SignatureCheckProgress | null;
  /** The last time the team record went back in time (sync/rollback.ts): what was lost, put back, listed; else null. */
  rollback: TeamRollbackState | null;
  /** Whether notifications were proven to arrive (sync/notify-probe.ts), and how often the desk pulls meanwhile. */
  notifications: TeamNotificationsState;
}

export interface TeamSync {
  /** Pulls and applies everything after the last seq seen; resolves with how many events were applied. */
  pullNow(): Promise<number>;
  status(): TeamSyncStatus;
  /** Re-checks the hash chain of everything this desk holds now (as the periodic check does). */
  recheckChain(): Promise<ChainState>;
  /** The background re-check of signatures taken from a snapshot (signature-check.ts): runs it, or the one running. */
  checkSignatures(): Promise<'done' | 'stopped' | 'none'>;
  onStatus(cb: (s: TeamSyncStatus) => void): () => void;
  close(): Promise<void>;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface TeamSyncOptions {
  pool: pg.Pool;
  db: Db;
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
  /** Pulls woken by notifications are at least this far apart; those in between share the next (default 100 ms). */
  gatherMs?: number;
  /** Events per page pulled from PostgreSQL (default 1,000); each page is applied in slices (sliceMs). */
  batchSize?: number;
  /**
   * How long one slice of pulled events may hold the main thread (default 25 ms): each slice is one
   * SQLite transaction that records its last seq, then the event loop runs (IPC calls, a charge) before
   * the next. The count per slice follows from how long the previous slices took.
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
  /** How many days the desk keeps what it witnessed of the record (witness.ts; default 14). */
  witnessDays?: number;
}

const RETRY_FIRST_MS = 500;
/** A slice of pulled events holds the main thread about this long (issue 23: never more than ~50 ms). */
const SLICE_MS = 25;
/**
 * Events per page pulled: a page and the next one (fetched while this one is applied) are all a desk
 * holds of a backlog, whatever its size; small enough to keep that flat, big enough that a page's round
 * trip is a small part of applying it.
 */
const PAGE = 1_000;
/** While a desk drains a backlog, the status bar hears how far it is at most this often. */
const STATUS_EVERY_MS = 250;

/** Lets the event loop run what waited (I/O, timers, an IPC call) before the next slice. */
const yieldToEventLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

interface SliceSizer {
  /** Events for the next slice. */
  size(): number;
  /** The last slice applied `n` events in `ms`. */
  took(n: number, ms: number): void;
}

/**
 * Sizes slices so one takes about `targetMs`: starts small, at most doubles from one slice to the next
 * (a cold cache or a busy machine is not taken for the rate), and shrinks at once when a slice ran long.
 */
export function sliceSizer(targetMs: number, most: number, first = 50): SliceSizer {
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
const RETRY_MAX_MS = 15_000;

async function pullSnapshots(pool: pg.Pool, after: number, limit: number): Promise<TeamSnapshot[]> {
  const rows = await selectBalanceSnapshotsAfter(pool, after, limit);
  return rows.map((s) => ({
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
}

/** Only the newest list matters: each row is a whole list that replaces the one before. */
async function pullNewestOptions(
  pool: pg.Pool,
  after: number,
): Promise<{ seq: number; fetchedAt: number; options: PaymentOption[] } | null> {
  const row = await selectNewestPaymentOptionList(pool, after);
  return row ? { seq: toSafeInteger(row.seq, 'seq'), fetchedAt: row.fetched_at.getTime(), options: row.options } : null;
}

export function startTeamSync(o: TeamSyncOptions): TeamSync {
  const { pool, db, clock, logger } = o;
  const pollEveryMs = o.pollEveryMs ?? 5_000;
  const pollWithoutNotificationsMs = Math.min(
    pollEveryMs,
    o.pollWithoutNotificationsMs ?? PULL_WITHOUT_NOTIFICATIONS_MS,
  );
  const gatherMs = o.gatherMs ?? 100;
  const batchSize = o.batchSize ?? PAGE;
  const sliceMs = o.sliceMs ?? SLICE_MS;
  /** How many events the next slice takes, learnt from how long the last ones took (kept across pulls). */
  const drain = sliceSizer(sliceMs, batchSize);
  const url = pool.options.connectionString;
  const keys = o.evidenceKeys;
  /** A verifier with the keys as they are now (read once per batch or start, not per event). */
  const verifier = () => (keys ? teamEventVerifier(keys()) : undefined);
  let state: TeamSyncStatus = {
    online: false,
    lastSeq: lastSeq(db, 'events'),
    lastPullAt: null,
    error: null,
    signInRefused: false,
    disabled: false,
    wrongDatabase: false,
    catchingUp: null,
    chain: { verifiedSeq: 0, recheckedAt: null, broken: null },
    signatures: signatureCheckProgress(db),
    rollback: null,
    notifications: { arriving: null, checkedAt: null, pullEveryMs: pollEveryMs },
  };
  const watchers = new Set<(s: TeamSyncStatus) => void>();
  let closed = false;
  let closeNow!: () => void;
  /** Settles when close() is called: what a pull waits for that is not its own work gives way to it. */
  const closing = new Promise<void>((r) => (closeNow = r));
  /** A pull is applying slices of a backlog (the status is told a few times a second meanwhile). */
  let draining = false;
  let timer: NodeJS.Timeout | undefined;
  /** Pulls failed in a row: the next try waits doublingDelay(failures, RETRY_FIRST_MS, RETRY_MAX_MS). */
  let failures = 0;
  let listener: Listener | null = null;
  let connecting = false;
  /** While the database is silent: the steady probe that pulls as soon as it can be reached (team/reconnect.ts). */
  const back = reachabilityWatch(url);

  function setStatus(next: Partial<TeamSyncStatus>): void {
    state = { ...state, ...next };
    for (const cb of watchers) {
      try {
        cb(state);
      } catch (e) {
        logger.warn({ err: e }, 'team sync: a status watcher failed');
      }
    }
  }

  // --- The hash chain (sync/chain-check.ts): checked before each batch is applied, re-checked in the background.
  const chain = createChainCheck({
    pool,
    db,
    now: () => clock.now(),
    // While a backlog drains, each slice moves the verified head: told with the drain's progress (a few
    // times a second), not after every slice. An alarm is told at once.
    onChange: (c) => {
      if (draining && !c.broken) state = { ...state, chain: c };
      else setStatus({ chain: c });
    },
    stopped: () => closed,
    // A record that went back in time is said in its own words (rollback.ts), not as tampering.
    explain: () => rollback.wentBack(),
  });
  state = { ...state, chain: chain.state() };

  // --- A record that went back in time (sync/rollback.ts): found, put right, said.
  const login = poolLogin(pool) ?? null;
  const rollback = startRollbackWatch({
    pool,
    db,
    clock,
    logger,
    login,
    chain,
    verify: () => verifier(),
    onChange: (r) => setStatus({ rollback: r }),
    onRebased: (applied) => tell(() => o.onCopied?.(applied, 'replay')),
    probeEveryMs: pollEveryMs,
    ...(o.restoreOthersAfterMs !== undefined ? { othersAfterMs: o.restoreOthersAfterMs } : {}),
    ...(o.witnessDays !== undefined ? { horizonDays: o.witnessDays } : {}),
    stopped: () => closed,
  });
  state = { ...state, rollback: rollback.state() };
  /** Look at the record at the next pull whatever the time: the first of a session, and after an outage. */
  let lookFirst = true;
  let prunedAt = -Infinity;
  // ---
  let recheckTimer: NodeJS.Timeout | undefined;
  let rechecking: Promise<ChainState> | null = null;
  let recheckStarted = false;
  /** One re-check at a time; the first after the first pull (sign-in), then every period. */
  function recheckChain(): Promise<ChainState> {
    if (closed) return Promise.resolve(chain.state());
    if (rechecking) return rechecking;
    const run = chain.recheck();
    rechecking = run;
    run
      .then(
        (c) => {
          if (c.broken) logger.warn({ broken: c.broken }, 'team sync: the team record does not match its hash chain');
        },
        (e: unknown) => logger.warn({ err: e }, 'team sync: the hash chain re-check could not run'),
      )
      .finally(() => {
        rechecking = null;
        const every = o.chainRecheckEveryMs ?? 5 * 60_000;
        if (!closed && every > 0) {
          clearTimeout(recheckTimer);
          recheckTimer = setTimeout(() => void recheckChain().catch(() => undefined), every);
          recheckTimer.unref?.();
        }
      });
    return run;
  }
  // ---

  let startChecked = false;
  let keysLoaded = false;

  // --- Signatures a snapshot start took before checking them (signature-check.ts), checked in the background.
  let signatureRun: Promise<'done' | 'stopped' | 'none'> | null = null;
  function checkSignatures(): Promise<'done' | 'stopped' | 'none'> {
    if (closed || !keys) return Promise.resolve('none');
    signatureRun ??= runSignatureCheck({
      pool,
      db,
      now: () => clock.now(),
      keys,
      onProgress: (p) => setStatus({ signatures: p }),
      stopped: () => closed,
    }).then(
      (r) => {
        if (r === 'done') logger.info({}, 'team sync: every signature taken from the snapshot is checked');
        signatureRun = null;
        return r;
      },
      (e: unknown) => {
        signatureRun = null;
        logger.warn(
          { err: e },
          'team sync: the re-check of the snapshot signatures stopped; it resumes at the next pull',
        );
        throw e;
      },
    );
    return signatureRun;
  }
  // ---

  /** Calls a watcher; one that throws is logged and never stops the sync. */
  function tell(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      logger.warn({ err: e }, 'team sync: a watcher failed');
    }
  }

  /** The desk's start (start.ts) before its first incremental pull; what it copied is told through onCopied. */
  async function startPull(): Promise<number> {
    try {
      const r = await startDesk({
        pool,
        db,
        clock,
        logger,
        bulkStart: o.bulkStart,
        snapshots: o.snapshots,
        bulkChunk: o.bulkChunk,
        onProgress: (p) => setStatus({ catchingUp: p, lastSeq: 0 }),
        stopped: () => closed,
        chain,
        ...(keys ? { keys, verify: verifier() } : {}),
      });
      startChecked = r !== null;
      if (!r) return 0;
      if (r.lastSeq !== null) setStatus({ lastSeq: r.lastSeq });
      if (r.applied) tell(() => o.onCopied?.(r.applied, r.from));
      return r.applied;
    } finally {
      if (state.catchingUp) setStatus({ catchingUp: null });
    }
  }

  /** The newest seq in the team record, for the progress of a desk that is behind. */
  async function newestSeq(): Promise<number> {
    return newestTeamSeq(pool, 'read how far the team record goes');
  }

  /**
   * The team database answered and is this desk's team's: the desk is online from now, while it catches
   * up, so what waits on that (the outbox push of a charge's events, the status bar) does not wait for
   * the backlog. An error of an earlier pull stays until this one has succeeded.
   */
  function reached(): void {
    if (!state.online) setStatus({ online: true, wrongDatabase: false, signInRefused: false, disabled: false });
  }

  /**
   * One full pull: events page after page (the next fetched while this one is applied), each page in
   * slices of about sliceMs, then poll results. A close stops it between two slices.
   */
  async function pullOnce(): Promise<number> {
    // A close does not wait for the keys (the workspace's first connection attempt may take a while).
    if (!keysLoaded && o.evidenceReady) await Promise.race([o.evidenceReady(), closing]);
    if (closed) return 0;
    keysLoaded = true;
    if (!startChecked) {
      await checkWorkspace(pool, db, clock.now());
      reached();
    }
    let total = startChecked ? 0 : await startPull();
    if (closed) return total;
    // Has the record gone back from what this desk verified? Put right before anything new is applied.
    total += await chain.starting(rollback.settle(lookFirst));
    lookFirst = false;
    if (state.lastSeq !== lastSeq(db, 'events')) setStatus({ lastSeq: lastSeq(db, 'events') }); // re-based
    if (closed) return total;
    // Signatures a snapshot start took unchecked: checked in the background (resumed after a restart or a failure).
    if (!signatureRun && keys && signatureCheckProgress(db)) void checkSignatures().catch(() => undefined);
    const fetch = (after: number): Promise<PullResult> => {
      const p = pullSince(pool, after, batchSize);
      p.catch(() => undefined); // awaited below; a prefetch abandoned by a failed apply must not go unhandled
      return p;
    };
    let next = fetch(lastSeq(db, 'events'));
    /** The record went back under this pull (at most once per pull): the desk re-based, and pulls from there. */
    let rebased = false;
    let again = false;
    // A desk that needs more than one slice says how far behind it is while it drains ("N events behind").
    let newest: number | null = null;
    let told = 0;
    try {
      for (;;) {
        const batch = await next;
        reached();
        if (closed) break;
        if (batch.more) next = fetch(batch.lastSeq);
        if (batch.more && newest === null) newest = await newestSeq();
        const verify = verifier();
        for (let i = 0; i < batch.events.length && !closed;) {
          const n = Math.min(drain.size(), batch.events.length - i);
          const slice = batch.events.slice(i, i + n);
          const sliceSeq = slice[slice.length - 1]!.seq;
          // Not applied unless it continues the chain this desk verified (throws ChainBrokenError).
          let checked;
          try {
            checked = await chain.checkPulled(slice, lastSeq(db, 'events'));
          } catch (e) {
            // The record went back in time under this pull: put right, then pull from the new head.
            if (!(e instanceof ChainMovedError) || rebased || !(await rollback.wentBack().catch(() => false))) throw e;
            rebased = again = true;
            total += await chain.starting(rollback.settle(true));
            setStatus({ lastSeq: lastSeq(db, 'events') });
            next = fetch(lastSeq(db, 'events'));
            break;
          }
          const started = process.cpuUsage();
          const r = applyWitnessed(db, slice, login, clock.now(), () =>
            applyEvents(db, slice, sliceSeq, clock.now(), verify),
          );
          chain.applied(checked);
          // Sized by the CPU time it took, not the wall time: on a busy machine the wall time also counts
          // the time other processes had the cores, and slices sized by it would shrink to a few events.
          const cpu = process.cpuUsage(started);
          drain.took(n, (cpu.user + cpu.system) / 1000);
          i += n;
          total += r.applied;
          state = { ...state, lastSeq: sliceSeq };
          if (r.changed.length && o.onApplied) {
            try {
              o.onApplied(r.changed);
            } catch (e) {
              logger.warn({ err: e }, 'team sync: onApplied failed');
            }
          }
          if (r.orphans && o.onOrphans) tell(() => o.onOrphans!(r.orphans));
          const remaining = i < batch.events.length || batch.more;
          draining = remaining;
          if (remaining) {
            newest ??= batch.lastSeq;
            // The status bar is told after each page and at most a few times a second, not after every slice.
            if (i >= batch.events.length || performance.now() - told >= STATUS_EVERY_MS) {
              told = performance.now();
              setStatus({
                lastSeq: sliceSeq,
                catchingUp: { copiedSeq: sliceSeq, totalSeq: Math.max(newest, sliceSeq) },
              });
            }
            // Each slice is committed; the event loop answers what waited (a window's IPC call, a charge).
            await yieldToEventLoop();
          }
        }
        if (again && !closed) {
          again = false;
          continue;
        }
        if (!batch.more || closed) break; // closing stops between slices: each one committed whole
      }
    } finally {
      draining = false;
      if (state.catchingUp) setStatus({ catchingUp: null });
    }
    if (closed) return total;
    if (total) rollback.applied(); // the lost list drops what came back through another witness
    if (clock.now() - prunedAt > 3_600_000) {
      prunedAt = clock.now();
      pruneWitness(db, prunedAt, o.witnessDays);
    }
    // This desk's own events the record placed or keeps otherwise: folded again in the record's order.
    const refolded = await refoldMarked({ pool, db, verify: verifier(), uptoSeq: lastSeq(db, 'events') });
    if (refolded.length && o.onApplied) tell(() => o.onApplied!(collectionStatuses(db, refolded)));
    if (closed) return total;
    try {
      for (;;) {
        const snaps = await pullSnapshots(pool, lastSeq(db, 'balance_snapshots'), batchSize);
        const changed = applySnapshots(db, snaps, clock.now());
        if (snaps.length) tell(() => o.onPolled?.('balances', changed));
        if (snaps.length < batchSize) break;
      }
      const list = await pullNewestOptions(pool, lastSeq(db, 'payment_option_lists'));
      if (list) {
        applyPaymentOptions(db, list, clock.now());
        tell(() => o.onPolled?.('options', list.options.length));
      }
    } catch (e) {
      throw translatePgError(e, 'pull balances and payment options', poolLogin(pool));
    }
    return total;
  }

  function schedule(ms: number): void {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void trigger(), ms);
    timer.unref?.();
  }

  let tail: Promise<unknown> = Promise.resolve();
  let waiting: Promise<number> | null = null;

  async function guardedPull(): Promise<number> {
    try {
      const wasOnline = state.online && !state.error;
      const n = await pullOnce();
      if (!wasOnline) logger.info({ lastSeq: state.lastSeq }, 'team sync: up to date with the team database');
      failures = 0;
      back.stop();
      setStatus({
        online: true,
        error: null,
        signInRefused: false,
        disabled: false,
        wrongDatabase: false,
        lastPullAt: clock.now(),
      });
      schedule(state.notifications.pullEveryMs);
      if (!listener) void connectListener();
      if (!recheckStarted) {
        recheckStarted = true;
        void recheckChain().catch(() => undefined); // logged there
      }
      return n;
    } catch (e) {
      const err = e as Error;
      const offline = err instanceof TeamUnavailableError;
      if (offline) lookFirst = true; // back from an outage (a failover?): the record is looked at first
      // Silence (nobody answered) is probed every second rather than backed off (team/reconnect.ts).
      const silent = isSilence(err);
      const retryMs = silent ? PROBE_EVERY_MS : doublingDelay(++failures, RETRY_FIRST_MS, RETRY_MAX_MS);
      const message = offline
        ? `Offline: the team database cannot be reached; showing this desktop's copy and ${silent ? 'trying again every second' : `retrying in ${Math.round(retryMs / 1000) || 1} s`} (${err.message})`
        : `Team sync failed: ${err.message}`;
      if (state.error !== message) logger.warn({ err, retryMs }, 'team sync: pull failed');
      setStatus({
        online: !offline && state.online,
        error: message,
        signInRefused: err instanceof TeamSignInError,
        disabled: err instanceof TeamDisabledError,
        wrongDatabase: err instanceof TeamWorkspaceMismatchError,
      });
      if (silent) {
        clearTimeout(timer);
        back.whenReachable(() => void trigger());
      } else schedule(retryMs);
      throw e;
    }
  }

  function pullNow(): Promise<number> {
    if (closed) return Promise.reject(new Error('team sync is closed'));
    if (waiting) return waiting;
    const p = tail.then(() => {
      waiting = null;
      return closed ? 0 : guardedPull();
    });
    waiting = p;
    tail = p.catch(() => undefined);
    return p;
  }

  // A busy team notifies once per event: a pull per notification is a PostgreSQL round trip, a SQLite
  // commit and a status for each event. A notification after a quiet spell pulls at once (an intent
  // recorded at another desk shows here in milliseconds); those within gatherMs of that pull wait for
  // the end of it and share one pull, so a busy team costs a few pulls a second, each adding at most
  // gatherMs of lag.
  let gathering: ReturnType<typeof setTimeout> | null = null;
  let gatheredAt = -Infinity;
  function gather(): void {
    if (closed || gathering) return;
    const wait = gatheredAt + gatherMs - performance.now();
    const pull = () => {
      gathering = null;
      gatheredAt = performance.now();
      void trigger();
    };
    if (wait <= 0) return pull();
    gathering = setTimeout(pull, wait);
    gathering.unref?.();
  }

  const trigger = (): Promise<void> =>
    pullNow().then(
      () => undefined,
      () => undefined,
    );

  // --- Notifications proven (sync/notify-probe.ts): while they do not arrive, the periodic pull runs every second.
  const probe = notifyProbe({
    pool,
    now: () => clock.now(),
    logger,
    relisten() {
      const dead = listener;
      listener = null;
      void dead?.close();
      void connectListener();
    },
    onVerdict(arriving, at) {
      const pullEveryMs = arriving ? pollEveryMs : pollWithoutNotificationsMs;
      setStatus({ notifications: { arriving, checkedAt: at, pullEveryMs } });
      if (state.online && !state.error) schedule(pullEveryMs);
    },
  });
  // ---

  async function connectListener(): Promise<void> {
    if (closed || listener || connecting || !url) return;
    connecting = true;
    try {
      const l = await listen(
        url,
        (seq) => {
          if (seq > state.lastSeq) gather();
        },
        {
          onError: (err) => {
            logger.warn({ err }, 'team sync: the notification connection failed; reconnecting');
            probe.notListening();
            const dead = listener;
            listener = null;
            void dead?.close();
            void trigger(); // its success reconnects; its failure backs off
          },
          tls: poolTls(pool),
          ...(o.onOperatorChanged ? { onOperator: (login: string) => tell(() => o.onOperatorChanged!(login)) } : {}),
          probe: { channel: probe.channel, heard: (token) => probe.heard(token) },
        },
      );
      if (closed) await l.close();
      else {
        listener = l;
        probe.listening();
        void trigger(); // what was written while nobody listened
        if (o.onOperatorChanged) tell(() => o.onOperatorChanged!(null)); // and what changed meanwhile
      }
    } catch (e) {
      logger.warn({ err: e }, 'team sync: cannot listen for new events yet');
    } finally {
      connecting = false;
    }
  }

  if (!url) logger.warn({}, 'team sync: the pool has no connection URL, so no notifications: pulling every period');
  void connectListener();
  void trigger();

  return {
    pullNow,
    status: () => state,
    recheckChain,
    checkSignatures,
    onStatus(cb) {
      watchers.add(cb);
      return () => watchers.delete(cb);
    },
    async close() {
      closed = true;
      closeNow();
      clearTimeout(timer);
      back.stop();
      probe.close();
      if (gathering) clearTimeout(gathering);
      clearTimeout(recheckTimer);
      waiting = null;
      await tail;
      await signatureRun?.catch(() => undefined);
      const l = listener;
      listener = null;
      await l?.close();
    },
  };
}
