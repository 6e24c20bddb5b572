// The parts of a workspace (workspace.ts openWorkspace), each built once with explicit arguments: the
// team link of a team profile, the reconciliation as events arrive and its sweep, the background poller,
// the status, and the order a failed start undoes them and a close stops them.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import { loadSettings, teamTlsOf, type Settings, type Profile, type VerificationKeys } from '../settings/index.js';
import { createPoller, type Poller } from '../poller/index.js';
import { lastSuccessfulRun } from '../store/sqlite/poll-runs.js';
import type { ServiceClient } from '../service/types.js';
import type { Reconciler } from '../reconcile/index.js';
import type { Ledger } from '../collections/ledger.js';
import type { ChargeService } from '../collections/charge/service.js';
import type { AppEventBus } from './event-bus.js';
import { statusFrom, type AppStatus } from './status.js';
import type { EmbeddedSandboxRunner } from './embedded-sandbox.js';
import { createTeamLink, type TeamLink } from './team.js';
import type { LocalReceiver } from './local-receiver.js';
import type { ServiceConnection } from './service-connection.js';

/** What every part is built with. */
export interface Basics {
  db: Db;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
}

/**
 * A team desk neither polls nor receives callbacks (serve does both, once for the team): it signs in,
 * pulls the team's record into this database, and charges with its own service connection. Null on a
 * solo profile (or a team profile not yet named).
 */
export function teamLinkFor(
  opts: Basics & { ledger: Ledger; teamSyncEveryMs?: number | undefined },
  settings: Settings,
  hooks: { onChange(): void; keys(): VerificationKeys; ready(): Promise<unknown> },
): TeamLink | null {
  if (settings.profile !== 'team' || !settings.teamDatabaseUrl || !settings.teamLogin) return null;
  const { db, clock, logger, events } = opts;
  return createTeamLink({
    db,
    ledger: opts.ledger,
    clock,
    logger,
    events,
    databaseUrl: settings.teamDatabaseUrl,
    tls: teamTlsOf(settings),
    login: settings.teamLogin,
    onChange: hooks.onChange,
    // Read for each batch the sync checks: the keys load with the connection, after the link exists.
    verificationKeys: hooks.keys,
    verificationKeysReady: hooks.ready,
    ...(opts.teamSyncEveryMs ? { syncEveryMs: opts.teamSyncEveryMs } : {}),
  });
}

/**
 * Every stored event is reconciled as it is appended (collections/ledger.ts), with this clock and
 * threshold; what no event drives (a pending collection turning stale) the sweep applies. Reads never write.
 */
export function startReconciling(reconciler: Reconciler, db: Db, clock: Clock, logger: Logger): { close(): void } {
  const reconcileOptions = () => ({ now: clock.now(), stalePendingAfterMs: loadSettings(db).stalePendingAfterMs });
  // The threshold is read from the stored setting by the path itself (cheaply, per event).
  reconciler.setOptions(db, () => ({ now: clock.now() }));
  return reconciler.startSweep(db, reconcileOptions, 60_000, (e) =>
    logger.error({ err: e }, 'reconciliation sweep failed'),
  );
}

/** When the poll log last saw a poll succeed (balances, else providers); null if never. */
function lastSuccessFromLog(db: Db): number | null {
  const at = [lastSuccessfulRun(db, 'balances'), lastSuccessfulRun(db, 'providers')].map((r) => r?.finishedAt ?? null);
  return at[0] ?? at[1] ?? null;
}

/** The background poller, started; each poll is said as an event and a new status. */
export function startWorkspacePoller(opts: Basics, client: () => ServiceClient | null, pushStatus: () => void): Poller {
  const { db, clock, logger, events } = opts;
  const poller = createPoller({
    db,
    clock,
    logger,
    getClient: client,
    intervals: () => loadSettings(db).pollIntervals,
    onUpdate: (ev) => {
      events.emit(ev.kind === 'balances' ? 'balances.polled' : 'options.polled', {
        outcome: ev.outcome,
        changed: ev.changed,
      });
      pushStatus();
    },
  });
  poller.start();
  return poller;
}

/** What a workspace's start and close have come to; the status reads it. */
export interface RunState {
  /** The first connection attempt is over (well or not). */
  started: boolean;
  /** Why that attempt failed, until a reconnect succeeds. */
  startError: Error | null;
  closing: boolean;
  poller: Poller | null;
}

export function statusOf(
  db: Db,
  /** The workspace's profile: a database's own, fixed while it is open (a switch opens another workspace). */
  profile: Profile,
  run: RunState,
  connection: ServiceConnection,
  sandboxRunning: boolean,
  team: TeamLink | null,
): AppStatus {
  const conn = connection.current();
  return statusFrom({
    profile,
    keychain: connection.keychain(),
    started: run.started,
    sandboxRunning,
    startError: run.startError?.message ?? null,
    connection: conn === null ? null : conn.ok ? { ok: true } : { ok: false, message: conn.error.message },
    poller: run.poller?.status() ?? null,
    // Only read when no poller runs yet (the poll log is a query).
    lastSuccessFromLog: run.poller ? null : lastSuccessFromLog(db),
    team: team?.state() ?? null,
  });
}

/** The parts a workspace stops, in the order it stops them. */
export interface Running {
  db: Db;
  logger: Logger;
  sweep: { close(): void };
  receiver: LocalReceiver;
  embedded: EmbeddedSandboxRunner;
  team: TeamLink | null;
}

/** A first start that failed (awaited, not in the background) closes what started, the database too. */
export async function undoStart(r: Running): Promise<void> {
  await r.receiver.close().catch(() => {});
  await r.embedded.close().catch(() => {});
  r.sweep.close();
  await r.team?.close().catch(() => {});
  r.db.close();
}

/** Stops everything, after a start in flight finishes; keepDb leaves the database open. */
export async function closeRunning(
  r: Running,
  run: RunState,
  charges: ChargeService,
  firstStart: Promise<unknown>,
  keepDb: boolean,
): Promise<void> {
  const { logger } = r;
  run.closing = true;
  r.sweep.close();
  charges.dispose();
  await firstStart; // a start in flight finishes (and is undone below, or stops its own sandbox)
  await run.poller?.stop();
  await r.receiver.close().catch((e: unknown) => logger.error({ err: e }, 'receiver close failed'));
  await r.embedded.close().catch((e: unknown) => logger.error({ err: e }, 'sandbox close failed'));
  await r.team?.close().catch((e: unknown) => logger.error({ err: e }, 'team link close failed'));
  if (!keepDb) r.db.close();
}
