// The composition root: builds the Core from the data folder's settings. With nothing configured the
// profile is `embedded`: the sandbox starts in this process (state in <dataDir>/sandbox), its keys are
// held in memory, the local callback receiver starts and the sandbox posts its callbacks there.
import fs from 'node:fs';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { openDatabase } from '../store/db.js';
import { createLogger } from '../log/index.js';
import { dataPaths, loadConnection, loadSettings, currentServicePublicKey, type Connection, type ConnectionFailure } from '../settings/index.js';
import { MemorySecretStore, secretStoreFor, type SecretStore } from '../secrets/index.js';
import { createPoller, type Poller } from '../poller/index.js';
import { createServiceClient } from '../service/client.js';
import { startCallbackReceiver, type CallbackReceiver } from '../callbacks/receiver.js';
import { startSandbox } from '../../sandbox/index.js';
import { createReconcileQueue, reconcileCollection } from '../reconcile/index.js';
import type { AppStatus } from '../ipc/contract/app.js';
import type { DeskEvents } from '../ipc/contract/index.js';
import { createEmitter } from './events.js';
import { appVersion } from './paths.js';
import type { Core, EmbeddedSandbox, ShellKind } from './core.js';

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
  sandbox?: { port?: number; timeScale?: number };
}

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export async function composeCore(opts: ComposeOptions): Promise<Core> {
  const paths = dataPaths(opts.dataDir);
  fs.mkdirSync(paths.dataDir, { recursive: true });
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger({ dataDir: paths.dataDir, base: { shell: opts.shell ?? 'none' } });
  const db = openDatabase(paths.db);
  const events = createEmitter((e) => logger.error({ err: e }, 'event listener failed'));
  const closers: (() => void | Promise<void>)[] = [];
  const memory = new MemorySecretStore();

  let sandbox: Sandbox | null = null;
  let receiver: CallbackReceiver | null = null;
  let receiverKey = '';
  let conn: Connection | ConnectionFailure | null = null;
  let keychain: AppStatus['keychain'] = 'memory';
  let secrets: SecretStore = memory;
  let poller: Poller | null = null;
  // Reconciliation follows events as they are stored (a burst of callbacks is one transaction); the
  // screens also catch up on open, and a full recompute gives the same answer.
  const reconcileOptions = () => ({ now: clock.now(), stalePendingAfterMs: loadSettings(db).stalePendingAfterMs });
  const reconcileQueue = createReconcileQueue(db, reconcileOptions);
  events.subscribe((event, payload) => {
    if (event !== 'collections.updated') return;
    try {
      reconcileCollection(db, (payload as DeskEvents['collections.updated']).id, reconcileOptions());
    } catch (e) {
      logger.error({ err: e }, 'reconciling an updated collection failed');
    }
  });

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
          if ('eventId' in outcome && outcome.eventId !== null) reconcileQueue.addEvent(outcome.eventId);
          events.emit('callbacks.ingested', { result: outcome.result, reference: 'reference' in outcome ? outcome.reference : null });
        },
      });
      logger.info({ url: receiver.url }, 'callback receiver listening');
    } catch (e) {
      logger.error({ err: e }, 'callback receiver did not start');
      events.emit('app.notice', { level: 'warning', message: `The callback receiver could not start on ${s.host}:${s.port}: ${(e as Error).message}` });
    }
  }

  async function ensureSandbox(): Promise<void> {
    if (sandbox) {
      // The receiver may have moved (host/port changed) or been turned off.
      sandbox.controls.config({ callback_url: receiver?.url ?? null });
      return;
    }
    fs.mkdirSync(paths.sandbox, { recursive: true });
    sandbox = await startSandbox({
      stateDir: paths.sandbox,
      port: opts.sandbox?.port ?? 0,
      host: '127.0.0.1',
      ...(receiver ? { callbackUrl: receiver.url } : {}),
      ...(opts.sandbox?.timeScale ? { timeScale: opts.sandbox.timeScale } : {}),
    });
    await memory.set('public-key', sandbox.publicKey);
    await memory.set('secret-key', sandbox.secretKey);
    await memory.set('signing-key', sandbox.signingKey);
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
  }

  async function appStatus(): Promise<AppStatus> {
    const profile = loadSettings(db).profile;
    const base = { profile, keychain };
    const ps = poller?.status();
    const lastSuccessfulPoll = ps ? (ps.balances.lastSuccessAt ?? ps.providers.lastSuccessAt) : null;
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

  try {
    await reconnect();
  } catch (e) {
    logger.error({ err: e }, 'start-up failed');
    await (receiver as CallbackReceiver | null)?.close().catch(() => {});
    await (sandbox as Sandbox | null)?.close().catch(() => {});
    db.close();
    throw e;
  }

  if (opts.poll !== false) {
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

  let closed: Promise<void> | null = null;
  const core: Core = {
    version: appVersion(),
    dataDir: paths.dataDir,
    db,
    clock,
    logger,
    settings: () => loadSettings(db),
    secrets: () => secrets,
    getClient: () => (conn?.ok ? conn.client : null),
    connectionProblem: () => (conn && !conn.ok ? { ...conn.error } : null),
    reconnect,
    signingKey,
    servicePublicKeyPem,
    poller,
    appStatus,
    paymentWindow: null,
    chooseSavePath: null,
    shell: opts.shell ?? 'none',
    events,
    embedded: (): EmbeddedSandbox | null =>
      sandbox ? { baseUrl: sandbox.baseUrl, controls: sandbox.controls, servicePublicKeyPath: sandbox.servicePublicKeyPath } : null,
    callbackReceiverUrl: () => receiver?.url ?? null,
    onClose: (fn) => void closers.push(fn),
    close: () =>
      (closed ??= (async () => {
        for (const fn of closers.reverse()) {
          try {
            await fn();
          } catch (e) {
            logger.error({ err: e }, 'close step failed');
          }
        }
        await poller?.stop();
        await receiver?.close().catch((e: unknown) => logger.error({ err: e }, 'receiver close failed'));
        await sandbox?.close().catch((e: unknown) => logger.error({ err: e }, 'sandbox close failed'));
        reconcileQueue.close();
        db.close();
        logger.info('closed');
        logger.flush?.();
      })()),
  };
  return core;
}
