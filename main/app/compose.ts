// The composition root: builds the Core from the data folder's settings. With nothing configured the
// profile is `embedded`: the sandbox starts in this process (state in <dataDir>/sandbox), its keys are
// held in memory, the local callback receiver starts and the sandbox posts its callbacks there.
//
// Each profile is a workspace with its own database (main/settings/workspace.ts). The Core is a stable
// facade over the active workspace: switching profile closes the workspace's capabilities (poller,
// receiver, embedded sandbox, reconcile queue, db), composes them for the new profile, records it as the
// active one and emits 'app.profileChanged'. Handlers read core.db / core.poller at call time.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import { createLogger } from '../log/index.js';
import {
  dataPaths,
  loadConnection,
  loadSettings,
  currentServicePublicKey,
  openActiveWorkspace,
  openProfileDatabase,
  readActiveProfile,
  updateSettings,
  writeActiveProfile,
  type Connection,
  type ConnectionFailure,
  type Profile,
  type SettingsPatch,
} from '../settings/index.js';
import { MemorySecretStore, secretStoreFor, type SecretStore } from '../secrets/index.js';
import { createPoller, type Poller } from '../poller/index.js';
import { lastSuccessfulRun } from '../store/poll-runs.js';
import { createServiceClient } from '../service/client.js';
import { startCallbackReceiver, type CallbackReceiver } from '../callbacks/receiver.js';
import { startSandbox } from '../../sandbox/index.js';
import { setReconcileOptions, startReconcileSweep } from '../reconcile/index.js';
import type { AppStatus } from '../ipc/contract/app.js';
import { createEmitter, type DeskEmitter } from './events.js';
import { appVersion } from './paths.js';
import type { Core, EmbeddedSandbox, ShellKind } from './core.js';
import { AppError } from './errors.js';
import { createAppLock, type Unlocker } from '../lock/index.js';

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
  sandbox?: {
    port?: number;
    timeScale?: number;
    /** Fault hook for tests: awaited before the sandbox starts (holds the 'starting' state open). */
    beforeStart?: () => Promise<void>;
  };
  /**
   * Return before the first workspace has connected (default false): the app window opens at once on the
   * cached data while the embedded sandbox starts (its first start makes an RSA-4096 key, seconds of
   * work) and the connection is set up; the status says 'starting' until then. core.ready() settles when done.
   */
  background?: boolean;
  /** The idle lock's unlocker (tests; the team profile) and check period (0: tests call check()). */
  lock?: { unlocker?: () => Unlocker; checkEveryMs?: number };
}

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export async function composeCore(opts: ComposeOptions): Promise<Core> {
  const paths = dataPaths(opts.dataDir);
  fs.mkdirSync(paths.dataDir, { recursive: true, mode: 0o700 });
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger({ dataDir: paths.dataDir, base: { shell: opts.shell ?? 'none' } });
  const events = createEmitter((e) => logger.error({ err: e }, 'event listener failed'));
  const closers: (() => void | Promise<void>)[] = [];

  const active = openActiveWorkspace(paths.dataDir, logger);
  let ws = await composeWorkspace({ ...opts, dataDir: paths.dataDir, clock, logger, events, db: active.db, background: opts.background ?? false });
  // One switch at a time (a second waits for the first).
  let switching: Promise<void> | null = null;

  async function switchProfile(profile: Profile, patch: SettingsPatch = {}): Promise<void> {
    while (switching) await switching.catch(() => {});
    if (closed) throw new AppError('conflict', 'the app is closing');
    const from = loadSettings(ws.db).profile;
    if (profile === from) {
      if (Object.keys(patch).length) updateSettings(ws.db, patch, clock);
      return;
    }
    // Validate the new profile's settings (with the patch) before anything is closed: a refused
    // switch leaves the current workspace running untouched.
    const fresh = !fs.existsSync(dataPaths(paths.dataDir, profile).db);
    const db = openProfileDatabase(paths.dataDir, profile);
    try {
      // A profile opened for the first time keeps who is working and their thresholds (not per environment).
      const cur = loadSettings(ws.db);
      const carried: SettingsPatch = fresh ? { operatorName: cur.operatorName, staleAfterMs: cur.staleAfterMs, stalePendingAfterMs: cur.stalePendingAfterMs } : {};
      updateSettings(db, { ...carried, ...patch, profile }, clock);
    } catch (e) {
      db.close();
      throw e;
    }
    switching = (async () => {
      // Stop the old profile's poller, receiver, sandbox and queue; its db stays open (handlers called
      // meanwhile still read a valid database) until the new workspace is up.
      const old = ws;
      await old.close({ keepDb: true });
      try {
        ws = await composeWorkspace({ ...opts, dataDir: paths.dataDir, clock, logger, events, db, background: false });
      } catch (e) {
        // The new profile could not start: go back to the one that was running.
        logger.error({ err: e, profile }, 'switching profile failed; staying on ' + from);
        ws = await composeWorkspace({ ...opts, dataDir: paths.dataDir, clock, logger, events, db: old.db, background: false });
        throw e;
      }
      old.db.close();
      writeActiveProfile(paths.dataDir, profile);
      logger.info({ from, to: profile }, 'switched profile');
      events.emit('app.profileChanged', { profile });
      events.emit('app.notice', { level: 'info', message: `Now on the ${profile} profile: its own settings, balances and collections are shown.` });
      void ws.appStatus().then((st) => events.emit('app.status', st));
    })();
    try {
      await switching;
    } finally {
      switching = null;
    }
  }

  // `merchant-desk connect --profile` (another process) records a new active profile: follow it.
  let watcher: fs.FSWatcher | null = null;
  let followTimer: NodeJS.Timeout | null = null;
  const follow = () => {
    followTimer = null;
    if (closed) return;
    let wanted: Profile;
    try {
      wanted = readActiveProfile(paths.dataDir, logger);
    } catch (e) {
      logger.warn({ err: e }, 'cannot read the active profile');
      return;
    }
    if (switching) {
      followTimer = setTimeout(follow, 100); // look again once the switch in progress is done
      return;
    }
    if (wanted === loadSettings(ws.db).profile) return;
    logger.info({ profile: wanted }, 'the active profile was changed outside the app; switching');
    switchProfile(wanted).catch((e: unknown) => {
      logger.error({ err: e }, 'could not switch to the profile chosen outside the app');
      events.emit('app.notice', { level: 'error', message: `Could not switch to the ${wanted} profile: ${(e as Error).message}` });
    });
  };
  try {
    watcher = fs.watch(paths.dataDir, (_type, name) => {
      if (name !== path.basename(paths.activeProfile)) return;
      if (followTimer) clearTimeout(followTimer);
      followTimer = setTimeout(follow, 100);
    });
    watcher.on('error', (e) => logger.warn({ err: e }, 'stopped watching the active profile'));
  } catch (e) {
    logger.warn({ err: e }, 'cannot watch the active profile; a profile chosen with connect applies when the app starts again');
  }

  const lock = createAppLock({
    clock,
    idleLockMinutes: () => loadSettings(ws.db).idleLockMinutes,
    onChange: (locked) => events.emit('lock.changed', { locked }),
    logger,
    ...opts.lock,
  });
  closers.unshift(() => lock.close());

  let closed: Promise<void> | null = null;
  const core: Core = {
    version: appVersion(),
    dataDir: paths.dataDir,
    get db() {
      return ws.db;
    },
    clock,
    logger,
    settings: () => loadSettings(ws.db),
    secrets: () => ws.secrets(),
    getClient: () => ws.getClient(),
    connectionProblem: () => ws.connectionProblem(),
    reconnect: () => ws.reconnect(),
    switchProfile,
    signingKey: () => ws.signingKey(),
    servicePublicKeyPem: () => ws.servicePublicKeyPem(),
    get poller() {
      return ws.poller;
    },
    appStatus: () => ws.appStatus(),
    ready: async () => {
      // A switch in progress makes a new workspace: wait for it, then for that one's start.
      while (switching) await switching.catch(() => {});
      await ws.ready;
    },
    paymentWindow: null,
    chooseSavePath: null,
    confirm: null,
    chooseOpenPath: null,
    shell: opts.shell ?? 'none',
    events,
    embedded: () => ws.embedded(),
    callbackReceiverUrl: () => ws.callbackReceiverUrl(),
    lock,
    onClose: (fn) => void closers.push(fn),
    close: () =>
      (closed ??= (async () => {
        watcher?.close();
        if (followTimer) clearTimeout(followTimer);
        await switching?.catch(() => {});
        for (const fn of closers.reverse()) {
          try {
            await fn();
          } catch (e) {
            logger.error({ err: e }, 'close step failed');
          }
        }
        await ws.close();
        logger.info('closed');
        logger.flush?.();
      })()),
  };
  return core;
}

interface WorkspaceOptions extends ComposeOptions {
  clock: Clock;
  logger: Logger;
  events: DeskEmitter;
  /** The profile's own database (openProfileDatabase); the workspace closes it. */
  db: Db;
  /** Connect in the background (see ComposeOptions.background); a failure is then reported, not thrown. */
  background: boolean;
}

/** One profile's running capabilities, all on that profile's database. */
interface Workspace {
  readonly db: Db;
  readonly poller: Poller | null;
  secrets(): SecretStore;
  getClient(): ReturnType<Core['getClient']>;
  connectionProblem(): ReturnType<Core['connectionProblem']>;
  reconnect(): Promise<void>;
  signingKey(): string | null;
  servicePublicKeyPem(): string | null;
  appStatus(): Promise<AppStatus>;
  embedded(): EmbeddedSandbox | null;
  callbackReceiverUrl(): string | null;
  /** Settles (never rejects) once the first connection attempt is over and the poller runs. */
  readonly ready: Promise<void>;
  /** Stops everything; keepDb leaves the database open (the caller closes it). */
  close(o?: { keepDb?: boolean }): Promise<void>;
}

async function composeWorkspace(opts: WorkspaceOptions): Promise<Workspace> {
  const { db, clock, logger, events } = opts;
  const paths = dataPaths(opts.dataDir, loadSettings(db).profile);
  const memory = new MemorySecretStore();

  let sandbox: Sandbox | null = null;
  let receiver: CallbackReceiver | null = null;
  let receiverKey = '';
  let conn: Connection | ConnectionFailure | null = null;
  let keychain: AppStatus['keychain'] = 'memory';
  let secrets: SecretStore = memory;
  let poller: Poller | null = null;
  // Every stored event is reconciled as it is appended (collections/events.ts), with this clock and
  // threshold; what no event drives (a pending collection turning stale) the sweep applies. Reads never write.
  const reconcileOptions = () => ({ now: clock.now(), stalePendingAfterMs: loadSettings(db).stalePendingAfterMs });
  // The threshold is read from the stored setting by the path itself (cheaply, per event).
  setReconcileOptions(db, () => ({ now: clock.now() }));
  const sweep = startReconcileSweep(db, reconcileOptions, 60_000, (e) => logger.error({ err: e }, 'reconciliation sweep failed'));
  const servicePublicKeyPem = (): string | null => {
    const p = sandbox && loadSettings(db).profile === 'embedded' ? sandbox.servicePublicKeyPath : (conn?.settings.servicePublicKeyPath ?? null);
    return currentServicePublicKey(p)?.pem ?? null;
  };
  const signingKey = (): string | null => (conn?.ok ? conn.signingKey : null);

  async function ensureReceiver(): Promise<void> {
    if (opts.receiver === false) return;
    const s = loadSettings(db).callbackReceiver;
    const key = JSON.stringify(s);
    if (receiver && key === receiverKey) return;
    if (receiver) {
      await receiver.close();
      receiver = null;
    }
    receiverKey = key;
    if (!s.enabled) return;
    try {
      receiver = await startCallbackReceiver({
        db,
        host: s.host,
        port: s.port,
        clock,
        logger,
        getKeys: () => ({ signingKey: signingKey(), servicePublicKey: servicePublicKeyPem() }),
        onIngest: (outcome) => {
          events.emit('callbacks.ingested', { result: outcome.result, reference: 'reference' in outcome ? outcome.reference : null });
        },
      });
      logger.info({ url: receiver.url }, 'callback receiver listening');
    } catch (e) {
      logger.error({ err: e }, 'callback receiver did not start');
      events.emit('app.notice', { level: 'warning', message: `The callback receiver could not start on ${s.host}:${s.port}: ${(e as Error).message}` });
    }
  }

  // The sandbox start in flight (a reconnect while it starts joins it rather than starting a second one).
  let sandboxStarting: Promise<Sandbox> | null = null;
  let closing = false;

  async function ensureSandbox(): Promise<void> {
    if (sandbox) {
      // The receiver may have moved (host/port changed) or been turned off.
      sandbox.controls.config({ callback_url: receiver?.url ?? null });
      return;
    }
    sandboxStarting ??= (async () => {
      await opts.sandbox?.beforeStart?.();
      fs.mkdirSync(paths.sandbox, { recursive: true });
      return await startSandbox({
        stateDir: paths.sandbox,
        port: opts.sandbox?.port ?? 0,
        host: '127.0.0.1',
        ...(receiver ? { callbackUrl: receiver.url } : {}),
        ...(opts.sandbox?.timeScale ? { timeScale: opts.sandbox.timeScale } : {}),
      });
    })().finally(() => (sandboxStarting = null));
    const started = await sandboxStarting;
    if (closing) {
      // The workspace was closed while the sandbox was starting: stop it rather than leak it.
      await started.close();
      throw new AppError('conflict', 'the workspace was closed while its sandbox was starting');
    }
    if (sandbox) return; // another caller joined the same start and finished it
    sandbox = started;
    sandbox.controls.config({ callback_url: receiver?.url ?? null });
    await memory.set('public-key', sandbox.publicKey);
    await memory.set('secret-key', sandbox.secretKey);
    await memory.set('signing-key', sandbox.signingKey);
    await memory.bindOrigin(new URL(sandbox.baseUrl).origin);
    logger.info({ baseUrl: sandbox.baseUrl }, 'embedded sandbox started');
  }

  async function reconnect(): Promise<void> {
    const profile = loadSettings(db).profile;
    await ensureReceiver();
    if (profile === 'embedded') {
      await ensureSandbox();
      secrets = memory;
      keychain = 'memory';
    } else {
      secrets = secretStoreFor(profile);
      const probe = await secrets.probe();
      keychain = probe.available ? 'available' : 'unavailable';
    }
    conn = await loadConnection({
      db,
      secrets,
      createClient: (o) => createServiceClient({ ...o, clock }),
      logger,
      ...(profile === 'embedded' && sandbox ? { override: { baseUrl: sandbox.baseUrl, servicePublicKeyPath: sandbox.servicePublicKeyPath } } : {}),
    });
    if (!conn.ok) logger.warn({ kind: conn.error.kind, field: conn.error.field }, `not connected: ${conn.error.message}`);
    if (started && !closing) {
      // A reconnect after a failed background start (e.g. settings fixed): now it runs.
      startError = null;
      startPoller();
    }
  }

  async function appStatus(): Promise<AppStatus> {
    const profile = loadSettings(db).profile;
    const base = { profile, keychain };
    const ps = poller?.status();
    // Before this session's first poll, the last success is the one the poll log remembers.
    const lastSuccessfulPoll = ps ? (ps.balances.lastSuccessAt ?? ps.providers.lastSuccessAt) : lastSuccessFromLog();
    if (!started) {
      const message = profile === 'embedded' && !sandbox ? 'Starting the sandbox…' : 'Connecting…';
      return { ...base, connection: 'starting', message, lastSuccessfulPoll };
    }
    if (startError) return { ...base, connection: 'error', message: `Start-up failed: ${startError.message}`, lastSuccessfulPoll };
    if (!conn || !conn.ok) {
      return {
        ...base,
        connection: 'not_configured',
        message: conn && !conn.ok ? conn.error.message : 'starting',
        lastSuccessfulPoll,
      };
    }
    const c = ps?.connection ?? { state: 'idle' as const };
    switch (c.state) {
      case 'idle':
        return { ...base, connection: 'starting', message: null, lastSuccessfulPoll };
      case 'online':
        return { ...base, connection: 'online', message: null, lastSuccessfulPoll };
      case 'offline':
        return { ...base, connection: 'offline', message: c.message, lastSuccessfulPoll };
      case 'error':
        return { ...base, connection: 'error', message: c.message, lastSuccessfulPoll };
    }
  }

  function lastSuccessFromLog(): number | null {
    const at = [lastSuccessfulRun(db, 'balances'), lastSuccessfulRun(db, 'providers')].map((r) => r?.finishedAt ?? null);
    return at[0] ?? at[1] ?? null;
  }

  function startPoller(): void {
    if (opts.poll === false || poller) return;
    poller = createPoller({
      db,
      clock,
      logger,
      getClient: () => (conn?.ok ? conn.client : null),
      intervals: () => loadSettings(db).pollIntervals,
      onUpdate: (ev) => {
        events.emit(ev.kind === 'balances' ? 'balances.updated' : 'options.updated', { outcome: ev.outcome, changed: ev.changed });
        void appStatus().then((s) => events.emit('app.status', s));
      },
    });
    poller.start();
  }

  // The first connection: awaited (a failure closes what started and throws), or in the background,
  // where a failure is logged and shown in the status; the cached data stays readable either way.
  let started = false;
  let startError: Error | null = null;
  const pushStatus = () => void appStatus().then((st) => events.emit('app.status', st));
  const firstStart = reconnect().then(
    () => {
      started = true;
      if (!closing) startPoller();
      pushStatus();
    },
    (e: unknown) => {
      started = true;
      startError = e instanceof Error ? e : new Error(String(e));
      return e;
    },
  );
  if (!opts.background) {
    const failed = await firstStart;
    if (failed !== undefined) {
      logger.error({ err: failed }, 'start-up failed');
      await (receiver as CallbackReceiver | null)?.close().catch(() => {});
      await (sandbox as Sandbox | null)?.close().catch(() => {});
      sweep.close();
      db.close();
      throw failed;
    }
  }
  const ready = firstStart.then((failed) => {
    if (failed === undefined || !opts.background || closing) return;
    logger.error({ err: failed }, 'start-up failed');
    events.emit('app.notice', { level: 'error', message: `The app could not connect: ${startError!.message}` });
    pushStatus();
  });

  let closed: Promise<void> | null = null;
  return {
    db,
    get poller() {
      return poller;
    },
    ready,
    secrets: () => secrets,
    getClient: () => (conn?.ok ? conn.client : null),
    connectionProblem: () => (conn && !conn.ok ? { ...conn.error } : null),
    reconnect,
    signingKey,
    servicePublicKeyPem,
    appStatus,
    embedded: (): EmbeddedSandbox | null =>
      sandbox ? { baseUrl: sandbox.baseUrl, controls: sandbox.controls, servicePublicKeyPath: sandbox.servicePublicKeyPath } : null,
    callbackReceiverUrl: () => receiver?.url ?? null,
    close: (o = {}) =>
      (closed ??= (async () => {
        closing = true;
        sweep.close();
        await firstStart; // a start in flight finishes (and is undone below, or stops its own sandbox)
        await poller?.stop();
        await receiver?.close().catch((e: unknown) => logger.error({ err: e }, 'receiver close failed'));
        await sandbox?.close().catch((e: unknown) => logger.error({ err: e }, 'sandbox close failed'));
        if (!o.keepDb) db.close();
      })()),
  };
}
