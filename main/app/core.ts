// The Core: the facade every shell and CLI command sees, built once by composeCore with explicit options
// (the shell passes what only it has, like the payment window). It stands over the active profile's
// workspace (workspace.ts): switching profile (profile-switch.ts) replaces the workspace underneath, so
// its members read the workspace at call time. The IPC handlers never see it: composeCore binds the
// operations the screens call and the reads they make to it once (core.operations, desk-operations.ts;
// core.queries, desk-queries.ts), and each handler table takes the few it calls.
// With nothing configured the profile is `embedded`: the sandbox starts in this process (state in
// <dataDir>/sandbox), its keys are held in memory, the local callback receiver starts and the sandbox
// posts its callbacks there.
import fs from 'node:fs';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import { createLogger } from '../log/index.js';
import type { ServiceClient } from '../service/types.js';
import type { PaymentWindowOpener } from '../collections/payment-window.js';
import type { ChargeService } from '../collections/charge/service.js';
import type { SecretStore } from '../secrets/index.js';
import {
  dataPaths,
  loadSettings,
  openActiveProfileDatabase,
  type Profile,
  type Settings,
  type SettingsPatch,
  type VerificationKeys,
} from '../settings/index.js';
import type { Poller } from '../poller/index.js';
import { createEventBus, type AppEventBus } from './event-bus.js';
import type { AppStatus } from './status.js';
import { appVersion } from './paths.js';
import { openWorkspace, type EmbeddedSandbox, type SandboxOptions, type Workspace } from './workspace.js';
import { createProfileSwitcher } from './profile-switch.js';
import { composeLedger } from './ledger.js';
import type { Ledger } from '../collections/ledger.js';
import type { Reconciler } from '../reconcile/incremental.js';
import type { IdleLock, Unlocker } from '../lock/index.js';
import { createLock, signInRemembered } from './lock-sign-in.js';
import type { TeamSession } from '../team/session.js';
import type { NewEvent } from '../collections/event-rules.js';
import type { TeamFirstRecord, TeamFirstWhat } from './team.js';
import { deskOperations, type Operations } from './desk-operations.js';
import { deskQueries, type Queries } from './desk-queries.js';
import type { MainConfirm, OpenPathChooser, SavePathChooser, ShellKind } from './shell-offers.js';

export type { MainConfirm, OpenPathChooser, SavePathChooser, ShellKind } from './shell-offers.js';

export type { Profile } from '../settings/index.js';

export type { EmbeddedSandbox } from './workspace.js';
export type { AppStatus } from './status.js';

export interface Core {
  readonly version: string;
  readonly dataDir: string;
  /** The active profile's database: read it at call time (it changes when the profile is switched). */
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The process's ledger (composeLedger, built once here): every event this app stores goes through it. */
  readonly ledger: Ledger;
  /** The reconciler under the ledger: its clock per database, its sweep, what no event drives. */
  readonly reconciler: Reconciler;
  /** Current non-secret settings (read fresh each call: the Settings screen changes them). */
  settings(): Settings;
  /** Keys of the current profile: memory for the embedded profile (its sandbox's keys), else the OS keychain. */
  secrets(): SecretStore;
  /**
   * The service client for the current profile, base URL and keys, or null when the connection is not
   * configured (connectionProblem() says why). Call reconnect() after changing settings or keys.
   */
  getClient(): ServiceClient | null;
  /** Why there is no client (names the setting to fix), or null when connected. */
  connectionProblem(): { kind: string; message: string; field?: string } | null;
  /** Re-reads settings and keys, rebuilds the client (starting the embedded sandbox if the profile needs it). */
  reconnect(): Promise<void>;
  /**
   * Makes `profile` the active workspace: validates its settings with `patch` applied (nothing changes
   * when they are invalid), closes the current profile's poller, receiver, embedded sandbox and database,
   * composes them on the new profile's own database, records it as active and emits 'profile.switched'.
   * The same profile: just applies `patch`.
   */
  switchProfile(profile: Profile, patch?: SettingsPatch): Promise<void>;
  /**
   * Starts the active profile's workspace again on the same database, for a change that the running
   * one cannot take (a team desk's database URL or login): emits 'workspace.reopened', and a team desk
   * locks until its operator signs in.
   */
  reopenWorkspace(): Promise<void>;
  /**
   * The merchant signing key (callback/redirect HMAC) and the service's RSA public key (card_cipher, RSA
   * signature checks) of the active profile's connection; each null when not set.
   */
  verificationKeys(): VerificationKeys;
  /** The active profile's charge service (card charges on its database). */
  charges(): ChargeService;
  /** Balances and payment options in the background (the active profile's); null when polling is off (one-shot CLI). */
  readonly poller: Poller | null;
  /** Profile, connection state and last successful poll, for the status bar. */
  appStatus(): AppStatus;
  /**
   * Settles (never rejects) once the active workspace's first connection attempt is over: the embedded
   * sandbox is up and the poller runs, or the failure is in appStatus(). Work that needs the service
   * (a charge, a refresh) waits on it; reads of the cache never do.
   */
  ready(): Promise<void>;
  /** Set by a shell that has a native save dialog (Electron); null: exports go to <data folder>/exports. */
  chooseSavePath: SavePathChooser | null;
  /** Set by a shell that has a native open dialog (Electron); null: imports are chosen from <data folder>/imports. */
  chooseOpenPath: OpenPathChooser | null;
  /** Set by a shell that can ask the user in the main process (Electron dialog); null means refuse. */
  confirm: MainConfirm | null;
  shell: ShellKind;
  /** main's own events (what happened); the renderer push (main/ipc/push.ts) is one subscriber. */
  readonly events: AppEventBus;
  /** The embedded sandbox, when the embedded profile started one. */
  embedded(): EmbeddedSandbox | null;
  /** Where the local callback receiver listens, when it runs. */
  callbackReceiverUrl(): string | null;
  /** Locks the app after the idle time; the shells pass it to createDispatcher as the IPC gate. */
  readonly lock: IdleLock;
  /** The signed-in operator of a team profile (their pool, role and sync); null on solo profiles or signed out. */
  team(): TeamSession | null;
  /**
   * A person's facts (a resolution, an import's callbacks) as they will be stored locally: on a team profile
   * they are recorded in the team database first and come back with the keys both copies share (and those
   * this write stored); a solo profile returns them as they are.
   * Offline, signed out or not allowed: throws an AppError saying so, and nothing must be stored.
   */
  recordTeamFirst(evs: readonly NewEvent[], what: TeamFirstWhat): Promise<TeamFirstRecord>;
  /** What the screens ask this desk to do, bound to it once (desk-operations.ts); the IPC handlers take these. */
  readonly operations: Operations;
  /** What the screens read from this desk, at call time (desk-queries.ts). */
  readonly queries: Queries;
  /** Runs on close(), last registered first. */
  onClose(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}

export interface ComposeOptions {
  dataDir: string;
  shell?: ShellKind;
  clock?: Clock;
  logger?: Logger;
  /** Start the background poller (default true). */
  poll?: boolean;
  /** Start the local callback receiver when settings enable it (default true). */
  receiver?: boolean;
  /** Sandbox options for the embedded profile (tests: timeScale). */
  sandbox?: SandboxOptions;
  /**
   * Return before the first workspace has connected (default false): the app window opens at once on the
   * cached data while the embedded sandbox starts (its first start makes an RSA-4096 key, seconds of
   * work) and the connection is set up; the status says 'starting' until then. core.ready() settles when done.
   */
  background?: boolean;
  /**
   * The shell's payment window (Electron BrowserWindow, or a Chromium browser context). A shell that makes
   * it only once its main window exists passes a function that returns it then (null before, and after
   * the window is gone). None in the CLI: a charge there is refused.
   */
  paymentWindow?: PaymentWindowOpener | (() => PaymentWindowOpener | null);
  /** The idle lock's unlocker (tests) and check period (0: tests call check()). */
  lock?: { unlocker?: () => Unlocker; checkEveryMs?: number };
  /** How a new charge's merchant_reference is made (tests race one reference across two desks). */
  chargeReference?: (now: number) => string;
  /** How often a team desk pulls the team database (tests). */
  teamSyncEveryMs?: number;
}

/** Closes the switcher, then every close step (the last added first), then the workspace; a failed step is logged. */
async function closeAll(
  switcher: { close(): Promise<void> },
  closers: (() => void | Promise<void>)[],
  ws: () => Workspace,
  logger: Logger,
): Promise<void> {
  await switcher.close();
  for (const fn of closers.reverse()) {
    try {
      await fn();
    } catch (e) {
      logger.error({ err: e }, 'close step failed');
    }
  }
  await ws().close();
  logger.info('closed');
  logger.flush?.();
}

export async function composeCore(opts: ComposeOptions): Promise<Core> {
  // The one ledger of this process, passed to every workspace (and through it to everything that stores events).
  const { ledger, reconciler } = composeLedger();
  const paths = dataPaths(opts.dataDir);
  fs.mkdirSync(paths.dataDir, { recursive: true, mode: 0o700 });
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger({ dataDir: paths.dataDir, base: { shell: opts.shell ?? 'none' } });
  const events = createEventBus((e) => logger.error({ err: e }, 'event listener failed'));
  const closers: (() => void | Promise<void>)[] = [];
  const pw = opts.paymentWindow;
  const paymentWindow = typeof pw === 'function' ? pw : () => pw ?? null;
  const open = (db: Db, background: boolean) =>
    openWorkspace({
      dataDir: paths.dataDir,
      db,
      clock,
      logger,
      events,
      ledger,
      reconciler,
      poll: opts.poll ?? true,
      receiver: opts.receiver ?? true,
      sandbox: opts.sandbox,
      background,
      paymentWindow,
      newReference: opts.chargeReference,
      teamSyncEveryMs: opts.teamSyncEveryMs,
    });

  let ws: Workspace = await open(openActiveProfileDatabase(paths.dataDir, logger).db, opts.background ?? false);
  const switcher = createProfileSwitcher({
    dataDir: paths.dataDir,
    clock,
    logger,
    events,
    current: () => ws,
    open: (db) => open(db, false),
    replace: (next) => (ws = next),
  });

  const lock = createLock(opts.lock, { clock, logger, events, current: () => ws });
  closers.unshift(() => lock.close());
  closers.unshift(events.subscribe((event) => event === 'team.signedOut' && lock.lockNow()));
  const signedInOnStart = signInRemembered({ lock, logger, events, current: () => ws });

  let closed: Promise<void> | null = null;
  const parts: Omit<Core, 'operations' | 'queries'> = {
    version: appVersion(),
    dataDir: paths.dataDir,
    get db() {
      return ws.db;
    },
    clock,
    logger,
    ledger,
    reconciler,
    settings: () => loadSettings(ws.db),
    secrets: () => ws.secrets(),
    getClient: () => ws.getClient(),
    connectionProblem: () => ws.connectionProblem(),
    reconnect: () => ws.reconnect(),
    switchProfile: (profile, patch) => switcher.switchProfile(profile, patch),
    reopenWorkspace: () => switcher.reopen(),
    verificationKeys: () => ws.verificationKeys(),
    charges: () => ws.charges,
    get poller() {
      return ws.poller;
    },
    appStatus: () => ws.appStatus(),
    ready: async () => {
      // A switch in progress makes a new workspace: wait for it, then for that one's start.
      await switcher.settled();
      await ws.ready;
      await signedInOnStart;
    },
    chooseSavePath: null,
    confirm: null,
    chooseOpenPath: null,
    shell: opts.shell ?? 'none',
    events,
    embedded: () => ws.embedded(),
    callbackReceiverUrl: () => ws.callbackReceiverUrl(),
    lock,
    team: () => ws.team()?.session() ?? null,
    recordTeamFirst: async (evs, what) => {
      const link = ws.team();
      return link
        ? link.recordFirst(evs, what)
        : { events: [...evs], stored: new Set<string>(), keys: evs.map((e) => e.dedupeKey ?? null) };
    },
    onClose: (fn) => void closers.push(fn),
    close: () => (closed ??= closeAll(switcher, closers, () => ws, logger)),
  };
  // Bound to the same object the shell then gives its dialogs to: they are read at call time.
  const core: Core = Object.assign(parts, { operations: deskOperations(parts), queries: deskQueries(parts) });
  return core;
}
