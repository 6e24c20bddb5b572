// One profile's running services, each built once here with explicit arguments, all on that profile's
// database: its keys (memory for the embedded profile, else the keychain), the connection and service
// client, the local callback receiver, the embedded sandbox, the poller, the reconcile sweep and the
// charge service. Closing it stops all of them; a profile switch (profile-switch.ts) closes one workspace
// and opens another. Nothing here outlives its workspace.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import {
  dataPaths,
  loadConnection,
  loadSettings,
  teamTlsOf,
  verificationKeys,
  type Connection,
  type ConnectionFailure,
  type Settings,
  type VerificationKeys,
} from '../settings/index.js';
import { MemorySecretStore, secretStoreFor, type SecretStore } from '../secrets/index.js';
import { createPoller, type Poller } from '../poller/index.js';
import { lastSuccessfulRun } from '../store/sqlite/poll-runs.js';
import { createServiceClient } from '../service/client.js';
import type { ServiceClient } from '../service/types.js';
import { startCallbackReceiver, type CallbackReceiver } from '../callbacks/receiver.js';
import { setReconcileOptions, startReconcileSweep } from '../reconcile/index.js';
import { createChargeService, type ChargeService } from '../collections/charge/service.js';
import type { PaymentWindowOpener } from '../collections/payment-window.js';
import type { AppEventBus } from './event-bus.js';
import { statusFrom, type AppStatus } from './status.js';
import { embeddedSandboxRunner, type SandboxOptions } from './embedded-sandbox.js';
import { createTeamLink, type TeamLink } from './team.js';
import { chargeActor } from '../operations/charge.js';

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

export interface WorkspaceChargeDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
  getClient: () => Promise<ServiceClient | null>;
  keys: () => VerificationKeys;
  /** The team's card fingerprint key (from the secret key), once connected. */
  fingerprintKey?: () => Buffer | null;
  /** The profile's settings (redirect URL and operator name are read at each charge). */
  settings: () => Pick<Settings, 'redirectUrl' | 'operatorName'>;
  paymentWindow: () => PaymentWindowOpener | null;
  /** The team profile's seam (intent-first in the team database); absent on solo profiles. */
  team?: TeamLink | null;
  newReference?: ((now: number) => string) | undefined;
}

/**
 * A workspace's charge service, built once on its database: it holds the repeat guard and pending
 * confirmations in memory, and says 'collection.changed' whenever a charge moves a collection.
 */
export function workspaceCharges(d: WorkspaceChargeDeps): ChargeService {
  return createChargeService({
    db: d.db,
    getClient: d.getClient,
    getServicePublicKeyPem: () => d.keys().servicePublicKey,
    getSigningKey: () => d.keys().signingKey,
    clock: d.clock,
    paymentWindow: d.paymentWindow,
    redirectUrl: () => d.settings().redirectUrl,
    operator: () =>
      chargeActor({ teamLogin: d.team ? d.team.state().login : null, operatorName: d.settings().operatorName }),
    logger: d.logger,
    onUpdate: (c) =>
      d.events.emit('collection.changed', { id: c.id, reference: c.merchantReference, status: c.status }),
    ...(d.team ? { team: () => d.team!.charges, getFingerprintKey: () => d.fingerprintKey?.() ?? null } : {}),
    ...(d.newReference ? { newReference: d.newReference } : {}),
  });
}

export async function openWorkspace(opts: WorkspaceOptions): Promise<Workspace> {
  const { db, clock, logger, events } = opts;
  const settingsAtOpen = loadSettings(db);
  const paths = dataPaths(opts.dataDir, settingsAtOpen.profile);
  const memory = new MemorySecretStore();
  // A team desk neither polls nor receives callbacks (serve does both, once for the team): it signs in,
  // pulls the team's record into this database, and charges with its own service connection.
  let team: TeamLink | null = null;
  if (settingsAtOpen.profile === 'team' && settingsAtOpen.teamDatabaseUrl && settingsAtOpen.teamLogin) {
    team = createTeamLink({
      db,
      clock,
      logger,
      events,
      databaseUrl: settingsAtOpen.teamDatabaseUrl,
      tls: teamTlsOf(settingsAtOpen),
      login: settingsAtOpen.teamLogin,
      onChange: () => pushStatus(),
      // Read for each batch the sync checks: the keys load with the connection, after the link exists.
      verificationKeys: () => keys(),
      verificationKeysReady: () => ready,
      ...(opts.teamSyncEveryMs ? { syncEveryMs: opts.teamSyncEveryMs } : {}),
    });
  }

  let receiver: CallbackReceiver | null = null;
  let receiverKey = '';
  let conn: Connection | ConnectionFailure | null = null;
  let keychain: AppStatus['keychain'] = 'memory';
  let secrets: SecretStore = memory;
  let poller: Poller | null = null;
  // Every stored event is reconciled as it is appended (collections/ledger.ts), with this clock and
  // threshold; what no event drives (a pending collection turning stale) the sweep applies. Reads never write.
  const reconcileOptions = () => ({ now: clock.now(), stalePendingAfterMs: loadSettings(db).stalePendingAfterMs });
  // The threshold is read from the stored setting by the path itself (cheaply, per event).
  setReconcileOptions(db, () => ({ now: clock.now() }));
  const sweep = startReconcileSweep(db, reconcileOptions, 60_000, (e) =>
    logger.error({ err: e }, 'reconciliation sweep failed'),
  );
  const keys = (): VerificationKeys => verificationKeys(conn);
  const client = (): ServiceClient | null => (conn?.ok ? conn.client : null);

  async function ensureReceiver(): Promise<void> {
    if (!opts.receiver || team) return;
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
        getKeys: keys,
        onIngest: (outcome) => {
          events.emit('callbacks.ingested', {
            result: outcome.result,
            reference: 'reference' in outcome ? outcome.reference : null,
          });
        },
      });
      logger.info({ url: receiver.url }, 'callback receiver listening');
    } catch (e) {
      logger.error({ err: e }, 'callback receiver did not start');
      events.emit('notice', {
        level: 'warning',
        message: `The callback receiver could not start on ${s.host}:${s.port}: ${(e as Error).message}`,
      });
    }
  }

  let closing = false;
  const embedded = embeddedSandboxRunner({
    stateDir: paths.sandbox,
    options: opts.sandbox,
    memory,
    logger,
    closing: () => closing,
  });
  const sandbox = () => embedded.running();

  async function reconnect(): Promise<void> {
    const profile = loadSettings(db).profile;
    await ensureReceiver();
    if (profile === 'embedded') {
      await embedded.ensure(receiver?.url ?? null);
      secrets = memory;
      keychain = 'memory';
    } else {
      secrets = secretStoreFor(profile);
      const probe = await secrets.probe();
      keychain = probe.available ? 'available' : 'unavailable';
    }
    const running = sandbox();
    conn = await loadConnection({
      db,
      secrets,
      createClient: (o) => createServiceClient({ ...o, clock }),
      logger,
      ...(profile === 'embedded' && running
        ? { override: { baseUrl: running.baseUrl, servicePublicKeyPath: running.servicePublicKeyPath } }
        : {}),
    });
    if (!conn.ok)
      logger.warn({ kind: conn.error.kind, field: conn.error.field }, `not connected: ${conn.error.message}`);
    if (started && !closing) {
      // A reconnect after a failed background start (e.g. settings fixed): now it runs.
      startError = null;
      startPoller();
    }
  }

  function appStatus(): AppStatus {
    return statusFrom({
      profile: loadSettings(db).profile,
      keychain,
      started,
      sandboxRunning: sandbox() !== null,
      startError: startError?.message ?? null,
      connection: conn === null ? null : conn.ok ? { ok: true } : { ok: false, message: conn.error.message },
      poller: poller?.status() ?? null,
      // Only read when no poller runs yet (the poll log is a query).
      lastSuccessFromLog: poller ? null : lastSuccessFromLog(),
      team: team?.state() ?? null,
    });
  }

  function lastSuccessFromLog(): number | null {
    const at = [lastSuccessfulRun(db, 'balances'), lastSuccessfulRun(db, 'providers')].map(
      (r) => r?.finishedAt ?? null,
    );
    return at[0] ?? at[1] ?? null;
  }

  const pushStatus = () => events.emit('status.changed', appStatus());

  function startPoller(): void {
    if (!opts.poll || poller || team) return;
    poller = createPoller({
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
  }

  // The first connection: awaited (a failure closes what started and throws), or in the background,
  // where a failure is logged and shown in the status; the cached data stays readable either way.
  let started = false;
  let startError: Error | null = null;
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
      await embedded.close().catch(() => {});
      sweep.close();
      await team?.close().catch(() => {});
      db.close();
      throw failed;
    }
  }
  const ready = firstStart.then((failed) => {
    if (failed === undefined || !opts.background || closing) return;
    logger.error({ err: failed }, 'start-up failed');
    events.emit('notice', { level: 'error', message: `The app could not connect: ${startError!.message}` });
    pushStatus();
  });

  const charges = workspaceCharges({
    db,
    clock,
    logger,
    events,
    // A charge made while the embedded sandbox is still starting waits for it.
    getClient: async () => {
      await ready;
      return client();
    },
    keys,
    fingerprintKey: () => (conn?.ok ? conn.fingerprintKey : null),
    settings: () => loadSettings(db),
    paymentWindow: opts.paymentWindow,
    team,
    newReference: opts.newReference,
  });

  let closed: Promise<void> | null = null;
  return {
    db,
    get poller() {
      return poller;
    },
    charges,
    ready,
    secrets: () => secrets,
    getClient: client,
    connectionProblem: () => (conn && !conn.ok ? { ...conn.error } : null),
    reconnect,
    verificationKeys: keys,
    appStatus,
    embedded: (): EmbeddedSandbox | null => {
      const sb = sandbox();
      return sb ? { baseUrl: sb.baseUrl, controls: sb.controls, servicePublicKeyPath: sb.servicePublicKeyPath } : null;
    },
    callbackReceiverUrl: () => receiver?.url ?? null,
    team: () => team,
    close: (o = {}) =>
      (closed ??= (async () => {
        closing = true;
        sweep.close();
        charges.dispose();
        await firstStart; // a start in flight finishes (and is undone below, or stops its own sandbox)
        await poller?.stop();
        await receiver?.close().catch((e: unknown) => logger.error({ err: e }, 'receiver close failed'));
        await embedded.close().catch((e: unknown) => logger.error({ err: e }, 'sandbox close failed'));
        await team?.close().catch((e: unknown) => logger.error({ err: e }, 'team link close failed'));
        if (!o.keepDb) db.close();
      })()),
  };
}
