// The pull side of the team record, composed of its parts: everything after the last seq this desktop
// applied, in batches, into its SQLite, after the desk's start. Each part has one job:
// - scheduler.ts: when to pull (LISTEN's wake on the beat, the periodic pull, back-off and reconnect);
// - listener.ts: the LISTEN connection and the proof that notifications arrive (notify-probe.ts);
// - pull-once.ts: one full pull (its checks first, then the events, then the refold and the polls);
// - pull-loop.ts: the events, page by page, each page one batch applied as a set (apply.ts);
// - chain-watch.ts: the hash chain, checked per batch and re-checked in the background;
// - signature-watch.ts: the background re-check of signatures a snapshot start took unchecked;
// - rollback.ts: a record that went back in time, found and put right;
// - status.ts: the one status object, computed in one place and told to its watchers;
// - notices.ts: what the screens are told, on the beat.
// A callback's way to a screen: serve commits it and PostgreSQL notifies; the listener wakes the
// scheduler, which pulls on the beat; the pull loop checks and applies the batch in one transaction; the
// notices tell the window once (ipc/push.ts forwards it at once); each screen re-reads what it shows.
import { lastSeq } from '../../store/sqlite/team/sync-state.js';
import { teamEventVerifier, type EventVerifier } from '../evidence.js';
import { poolLogin } from '../pool.js';
import { PULL_WITHOUT_NOTIFICATIONS_MS } from '../notify-words.shared.js';
import { TeamUnavailableError } from '../errors.js';
import { createChainWatch, type ChainWatch } from './chain-watch.js';
import { createSyncListener } from './listener.js';
import { createSyncNotices, type SyncNotices } from './notices.js';
import { createPull, type Pull } from './pull-once.js';
import { PAGE, SLICE_MS, sliceSizer } from './pull-loop.js';
import { startRollbackWatch } from './rollback.js';
import { BEAT_MS, createScheduler } from './scheduler.js';
import { signatureCheckProgress } from './signature-check.js';
import { createSignatureWatch } from './signature-watch.js';
import { createSyncStatus, initialStatus, type SyncStatus } from './status.js';

export type { TeamSyncStatus } from './status.js';
export type { TeamSync, TeamSyncOptions } from './sync-options.js';
import type { TeamSync, TeamSyncOptions } from './sync-options.js';
export { sliceSizer } from './pull-loop.js';

/** What every part shares: the database, the clock, whether the sync is closing, its status and notices. */
interface Base {
  o: TeamSyncOptions;
  now: () => number;
  stopped: () => boolean;
  status: SyncStatus;
  notices: SyncNotices;
  beatMs: number;
  pollEveryMs: number;
  login: string | null;
  /** A verifier with the keys as they are now (read once per batch or start, not per event). */
  verifier: () => EventVerifier | undefined;
}

/** The watches over the record: its hash chain, a rollback, the signatures a snapshot start took unchecked. */
function watches(b: Base) {
  const { pool, db, clock, logger } = b.o;
  const chain = createChainWatch({
    pool,
    db,
    now: b.now,
    status: b.status,
    logger,
    everyMs: b.o.chainRecheckEveryMs,
    stopped: b.stopped,
    // A record that went back in time is said in its own words (rollback.ts), not as tampering.
    explain: () => rollback.wentBack(),
  });
  const rollback = startRollbackWatch({
    pool,
    db,
    ledger: b.o.ledger,
    clock,
    logger,
    login: b.login,
    chain,
    verify: b.verifier,
    onChange: (r) => b.status.set({ rollback: r }),
    onRebased: (applied) => b.notices.copied(applied, 'replay'),
    probeEveryMs: b.pollEveryMs,
    othersAfterMs: b.o.restoreOthersAfterMs,
    ownGuards: b.o.ownGuards,
    horizonDays: b.o.witnessDays,
    stopped: b.stopped,
  });
  b.status.note({ rollback: rollback.state() });
  const keys = b.o.evidenceKeys;
  const signatures = createSignatureWatch({
    pool,
    db,
    ledger: b.o.ledger,
    now: b.now,
    keys,
    status: b.status,
    logger,
    isStopped: b.stopped,
  });
  return { chain, rollback, signatures };
}

/** When to pull (the scheduler) and what wakes it (the listener), around one full pull. */
function scheduling(b: Base, pull: Pull, chain: ChainWatch) {
  const { pool, logger } = b.o;
  const scheduler = createScheduler({
    pull: pull.run,
    status: b.status,
    now: b.now,
    logger,
    url: pool.options.connectionString,
    beatMs: b.beatMs,
    pullEveryMs: () => b.status.get().notifications.pullEveryMs,
    onPulled: () => {
      void listener.connect();
      chain.pulled();
    },
    onFailed: (err) => {
      if (err instanceof TeamUnavailableError) pull.lookFirst();
    },
    listening: { hold: () => listener.hold(), resume: () => listener.resume() },
  });
  const listener = createSyncListener({
    pool,
    now: b.now,
    logger,
    status: b.status,
    scheduler,
    notices: b.notices,
    pullEveryMs: b.pollEveryMs,
    pullWithoutNotificationsMs: Math.min(
      b.pollEveryMs,
      b.o.pollWithoutNotificationsMs ?? PULL_WITHOUT_NOTIFICATIONS_MS,
    ),
  });
  return { scheduler, listener };
}

export function startTeamSync(o: TeamSyncOptions): TeamSync {
  const { pool, db, clock, logger } = o;
  const pollEveryMs = o.pollEveryMs ?? 5_000;
  const beatMs = o.gatherMs ?? BEAT_MS;
  const keys = o.evidenceKeys;
  let closed = false;
  let closeNow!: () => void;
  const closing = new Promise<void>((r) => (closeNow = r));
  const status = createSyncStatus(
    initialStatus(lastSeq(db, 'events'), signatureCheckProgress(db), pollEveryMs),
    logger,
  );
  const b: Base = {
    o,
    now: () => clock.now(),
    stopped: () => closed,
    status,
    notices: createSyncNotices(o, { beatMs, logger }),
    beatMs,
    pollEveryMs,
    login: poolLogin(pool) ?? null,
    verifier: () => (keys ? teamEventVerifier(keys()) : undefined),
  };
  const { chain, rollback, signatures } = watches(b);
  const batchSize = o.batchSize ?? PAGE;
  const pull = createPull({
    ...b,
    pool,
    db,
    ledger: o.ledger,
    clock,
    logger,
    chain,
    rollback,
    signatures,
    keys,
    evidenceReady: o.evidenceReady,
    closing,
    start: { bulkStart: o.bulkStart, snapshots: o.snapshots, bulkChunk: o.bulkChunk },
    sizer: sliceSizer(o.sliceMs ?? SLICE_MS, batchSize),
    pageSize: batchSize,
    pollPage: batchSize,
    progressEvery: batchSize,
    witnessDays: o.witnessDays,
  });
  const { scheduler, listener } = scheduling(b, pull, chain);
  void listener.connect();
  void scheduler.trigger();
  return {
    pullNow: scheduler.pullNow,
    status: status.get,
    recheckChain: chain.recheckChain,
    checkSignatures: signatures.check,
    onStatus: status.watch,
    recordLooked: () => !pull.owesLook(),
    lookFirst: pull.lookFirst,
    async close() {
      closed = true;
      closeNow();
      chain.close();
      await scheduler.close();
      await signatures.stopped();
      await listener.close();
    },
  };
}
