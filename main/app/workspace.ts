// One profile's running services, each built once here with explicit arguments, all on that profile's
// database: its keys (memory for the embedded profile, else the keychain), the connection and service
// client, the local callback receiver, the embedded sandbox, the poller, the reconcile sweep and the
// charge service. Closing it stops all of them; a profile switch (profile-switch.ts) closes one workspace
// and opens another. Nothing here outlives its workspace.
import type { Logger } from 'pino';
import { DeskError } from '../errors.shared.js';
import { noticeOf } from './event-bus.js';
import { nest, words } from '../words/words.shared.js';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import {
  dataPaths,
  loadSettings,
  type Connection,
  type ConnectionFailure,
  type VerificationKeys,
} from '../settings/index.js';
import { MemorySecretStore, type SecretStore } from '../secrets/index.js';
import type { Poller } from '../poller/index.js';
import type { ServiceClient } from '../service/types.js';
import type { ChargeService } from '../collections/charge/service.js';
import type { Ledger } from '../collections/ledger.js';
import type { Reconciler } from '../reconcile/incremental.js';
import type { PaymentWindowOpener } from '../collections/payment-window.js';
import type { AppEventBus } from './event-bus.js';
import type { AppStatus } from './status.js';
import { embeddedSandboxRunner, type Sandbox, type SandboxOptions } from './embedded-sandbox.js';
import type { TeamLink } from './team.js';
import { localReceiver } from './local-receiver.js';
import { serviceConnection } from './service-connection.js';
import { chargesOn } from './workspace-charges.js';
import {
  closeRunning,
  startReconciling,
  startWorkspacePoller,
  statusOf,
  teamLinkFor,
  undoStart,
  type RunState,
  type Running,
} from './workspace-parts.js';

/** The local sandbox of the embedded profile, when it runs in this process. */
export interface EmbeddedSandbox {
  baseUrl: string;
  /** The sandbox's typed test controls (same operations as its /__sandbox HTTP routes). */
  controls: unknown;
  servicePublicKeyPath: string;
}

export type { SandboxOptions } from './embedded-sandbox.js';

export interface WorkspaceOptions {
  dataDir: string;
  /** The profile's own database (openProfileDatabase); the workspace closes it unless told to keep it. */
  db: Db;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
  /** The process's ledger and the reconciler under it (main/app/ledger.ts composeLedger, built by the root). */
  ledger: Ledger;
  reconciler: Reconciler;
  /** Start the background poller. */
  poll: boolean;
  /** Start the local callback receiver when settings enable it. */
  receiver: boolean;
  /** Sandbox options for the embedded profile. */
  sandbox: SandboxOptions | undefined;
  /** Connect in the background: a failure is then reported in the status, not thrown. */
  background: boolean;
  /** The shell's payment window, when it has one at the time of a charge. */
  paymentWindow: () => PaymentWindowOpener | null;
  /** How a new charge's merchant_reference is made (tests race one reference across desks). */
  newReference?: ((now: number) => string) | undefined;
  /** How often a team desk pulls the team database (default the sync's). */
  teamSyncEveryMs?: number | undefined;
}

/** One profile's running services. */
export interface Workspace {
  readonly db: Db;
  readonly poller: Poller | null;
  /** Charges on this profile's database (repeat guard and pending confirmations are per workspace). */
  readonly charges: ChargeService;
  secrets(): SecretStore;
  getClient(): ServiceClient | null;
  connectionProblem(): { kind: string; message: string; field?: string } | null;
  reconnect(): Promise<void>;
  /** The signing key and service public key of this profile's connection. */
  verificationKeys(): VerificationKeys;
  appStatus(): AppStatus;
  embedded(): EmbeddedSandbox | null;
  callbackReceiverUrl(): string | null;
  /** The team profile's link to the team database (sign-in, session, sync); null on solo profiles. */
  team(): TeamLink | null;
  /** Settles (never rejects) once the first connection attempt is over and the poller runs. */
  readonly ready: Promise<void>;
  /** Stops everything; keepDb leaves the database open (the caller closes it). */
  close(o?: { keepDb?: boolean }): Promise<void>;
}

/**
 * The first connection attempt: either way the workspace has started (the status says so); a failure is
 * kept in the run state and handed on (the promise resolves to it), not thrown.
 */
function firstConnection(run: RunState, reconnect: () => Promise<void>, started: () => void): Promise<unknown> {
  return reconnect().then(
    () => {
      run.started = true;
      started();
    },
    (e: unknown) => {
      run.started = true;
      run.startError = e instanceof Error ? e : new Error(String(e));
      return e;
    },
  );
}

function problemOf(conn: Connection | ConnectionFailure | null): ReturnType<Workspace['connectionProblem']> {
  return conn && !conn.ok ? { ...conn.error } : null;
}

function embeddedOf(sb: Sandbox | null): EmbeddedSandbox | null {
  return sb ? { baseUrl: sb.baseUrl, controls: sb.controls, servicePublicKeyPath: sb.servicePublicKeyPath } : null;
}

export async function openWorkspace(opts: WorkspaceOptions): Promise<Workspace> {
  const { db, clock, logger, events } = opts;
  const settingsAtOpen = loadSettings(db);
  const paths = dataPaths(opts.dataDir, settingsAtOpen.profile);
  const memory = new MemorySecretStore();
  const team = teamLinkFor(opts, settingsAtOpen, {
    onChange: () => pushStatus(),
    keys: () => connection.keys(),
    ready: () => ready,
  });

  const run: RunState = { started: false, startError: null, closing: false, poller: null };
  const sweep = startReconciling(opts.reconciler, db, clock, logger);
  const embedded = embeddedSandboxRunner({
    stateDir: paths.sandbox,
    options: opts.sandbox,
    memory,
    logger,
    closing: () => run.closing,
  });
  const connection = serviceConnection({
    db,
    clock,
    logger,
    memory,
    embedded,
    beforeConnect: () => receiver.ensure(),
    receiverUrl: () => receiver.url(),
  });
  const receiver = localReceiver({
    enabled: opts.receiver && !team,
    db,
    ledger: opts.ledger,
    clock,
    logger,
    events,
    getKeys: connection.keys,
  });
  const parts: Running = { db, logger, sweep, receiver, embedded, team };

  async function reconnect(): Promise<void> {
    await connection.connect();
    if (run.started && !run.closing) {
      // A reconnect after a failed background start (e.g. settings fixed): now it runs.
      run.startError = null;
      startPoller();
    }
  }
  const appStatus = () => statusOf(db, settingsAtOpen.profile, run, connection, embedded.running() !== null, team);
  const pushStatus = () => events.emit('status.changed', appStatus());
  function startPoller(): void {
    if (!opts.poll || run.poller || team) return;
    run.poller = startWorkspacePoller(opts, connection.client, pushStatus);
  }

  // The first connection: awaited (a failure closes what started and throws), or in the background,
  // where a failure is logged and shown in the status; the cached data stays readable either way.
  const firstStart = firstConnection(run, reconnect, () => {
    if (!run.closing) startPoller();
    pushStatus();
  });
  if (!opts.background) {
    const failed = await firstStart;
    if (failed !== undefined) {
      logger.error({ err: failed }, 'start-up failed');
      await undoStart(parts);
      throw failed;
    }
  }
  const ready = firstStart.then((failed) => {
    if (failed === undefined || !opts.background || run.closing) return;
    logger.error({ err: failed }, 'start-up failed');
    const e = run.startError!;
    events.emit(
      'notice',
      noticeOf(
        'error',
        words('app.notice.couldNotConnect', nest('reason', e instanceof DeskError ? e.words : undefined, e.message)),
      ),
    );
    pushStatus();
  });

  const charges = chargesOn(opts, connection, ready, team);
  let closed: Promise<void> | null = null;
  return {
    db,
    get poller() {
      return run.poller;
    },
    charges,
    ready,
    secrets: connection.secrets,
    getClient: connection.client,
    connectionProblem: () => problemOf(connection.current()),
    reconnect,
    verificationKeys: connection.keys,
    appStatus,
    embedded: () => embeddedOf(embedded.running()),
    callbackReceiverUrl: receiver.url,
    team: () => team,
    close: (o = {}) => (closed ??= closeRunning(parts, run, charges, firstStart, o.keepDb ?? false)),
  };
}
