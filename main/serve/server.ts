// `merchant-desk serve`: the team's headless process. The app's callback receiver (limits, time-outs,
// group commit, security log) storing into the team's PostgreSQL, the poller once for the whole team,
// and /healthz, on one listener behind the merchant's HTTPS reverse proxy. Several instances may run
// behind that proxy (docs/serve.md): each stores what it receives (once by event key, whichever answers)
// and keeps its own journal in its own data folder; one of them polls (poll-lease.ts).
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from 'pino';
import { startCallbackReceiver, type CallbackReceiver } from '../callbacks/receiver.js';
import { DEFAULT_RATE_LIMIT, type RateLimitOptions } from '../callbacks/rate-limit.js';
import { createPoller, type PollIntervals } from '../poller/poller.js';
import { createServiceClient } from '../service/client.js';
import type { MerchantKeys } from '../service/types.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import type { Db } from '../store/sqlite/connection.js';
import { openServeSecurityLog } from '../store/sqlite/serve-security-log.js';
import { openTeamPool } from '../team/pool.js';
import type { TeamTls } from '../team/tls.js';
import { systemClock, type Clock } from '../clock.js';
import { teamCallbackStore, type TeamStoreStats } from './team-callback-store.js';
import { teamPollSink } from './poll-to-team.js';
import { startPollLease, type PollLease } from './poll-lease.js';
import { callbackVerifier, defaultVerifyThreads, type CallbackVerifier } from '../callbacks/verify-pool.js';
import { healthRoute } from './health.js';
import { DEFAULT_JOURNAL_DAYS, openJournal, type ServeJournal } from './journal.js';
import { startRecordWatch, type RecordWatch } from './record-watch.js';

const SERVE_DB_FILE = 'serve.sqlite';

// serve runs behind the merchant's reverse proxy, usually on the same host: then every request arrives
// from loopback, and the desktop receiver's loopback allowance (its own sandbox, any local process)
// would exempt the whole internet. Here loopback is the proxy, so it gets a remote source's limit:
// one bucket shared by everything the proxy forwards, or one per client with --trust-proxy.
export const SERVE_RATE_LIMIT: RateLimitOptions = {
  loopbackPerSecond: DEFAULT_RATE_LIMIT.perSecond,
  loopbackBurst: DEFAULT_RATE_LIMIT.burst,
};

export interface ServeOptions {
  /** With the password, already resolved (config.ts); never logged. */
  databaseUrl: string;
  /** TLS to the team database (--sslmode, --ssl-ca); default: by host. */
  tls?: TeamTls;
  host: string;
  port: number;
  /** Checks the service's callback signatures; at least one of the two. */
  verification: SignatureKeys;
  /** The poller's service: off when null (the receiver runs alone). */
  poll: { baseUrl: string; keys: MerchantKeys; intervals: PollIntervals } | null;
  /** serve's own folder: the security log's SQLite file, and the journal of acknowledged callbacks. */
  dataDir: string;
  /** How many days the journal keeps each acknowledged callback (journal.ts; default 14). */
  journalDays?: number;
  /** How long after finding callbacks the record lost serve puts them back itself (record-watch.ts; default 10 s). */
  restoreAfterMs?: number;
  /** How often serve checks the record still holds what it acknowledged (default 5 s). */
  recordCheckEveryMs?: number;
  trustProxy?: boolean | string | string[];
  /** Over SERVE_RATE_LIMIT (--rate-limit; the throughput bench posts from loopback with no proxy in front). */
  rateLimit?: RateLimitOptions;
  /** Worker threads for the RSA checks (verify-pool.ts; default: a core left free, at most 4; 0: none). */
  verifyThreads?: number;
  /** How long the poller lease is taken for, in seconds (poll-lease.ts; default 15). */
  pollLeaseSeconds?: number;
  /** This instance's id in the poller lease (default: host, pid and a random part). */
  instance?: string;
  logger: Logger;
  clock?: Clock;
}

export interface RunningServe {
  /** Where callbacks are received, e.g. http://127.0.0.1:8080/callbacks/collections. */
  url: string;
  host: string;
  port: number;
  receiver: CallbackReceiver;
  /** Which instance polls (null with --no-poll). */
  pollLease: PollLease | null;
  verifier: CallbackVerifier;
  /** The watch over the callbacks serve acknowledged (record-watch.ts). */
  record: RecordWatch;
  /** Where the callback groups' time went (team-callback-store.ts). */
  storeStats(): TeamStoreStats;
  /** Stops taking requests, commits (and answers) what is in flight, stops polling, closes the pool. */
  close(): Promise<void>;
}

/**
 * serve's two pools to the team database: one for the callbacks, the health route and the poller, and the
 * record watch's own connection, kept open for good. A break of either is a break the watch hears.
 */
function openPools(o: ServeOptions, log: Logger, connectionLost: () => void): { pool: pg.Pool; watchPool: pg.Pool } {
  const pool = openTeamPool(o.databaseUrl, {
    // Group commits overlap while one waits for its fsync; more connections would only queue on the
    // events table's lock (rows commit in seq order).
    max: 4,
    ...(o.tls ? { tls: o.tls } : {}),
    onIdleError: (err) => {
      log.warn({ err: err.message }, 'team database connection lost; reconnecting on next use');
      connectionLost();
    },
  });
  // The record watch's own connection, kept open for good: when the database restarts, moves or is
  // dropped, its break is heard even on a quiet night with no callback in flight.
  const watchPool = openTeamPool(o.databaseUrl, {
    max: 1,
    idleTimeoutMillis: 0,
    ...(o.tls ? { tls: o.tls } : {}),
    onIdleError: connectionLost,
  });
  return { pool, watchPool };
}

/** The poller lease: whichever instance holds it polls the service and writes to the team record. */
function startPollingByLease(
  poll: NonNullable<ServeOptions['poll']>,
  o: ServeOptions,
  pool: pg.Pool,
  clock: Clock,
): PollLease {
  const log = o.logger;
  const { baseUrl, keys, intervals } = poll;
  const client = createServiceClient({ baseUrl, keys: () => keys, logger: log });
  return startPollLease({
    pool,
    logger: log,
    ...(o.pollLeaseSeconds !== undefined ? { leaseSeconds: o.pollLeaseSeconds } : {}),
    ...(o.instance !== undefined ? { instance: o.instance } : {}),
    startPolling: (fence) => {
      const sink = teamPollSink(pool, log, fence);
      const poller = createPoller({ sink, getClient: () => client, clock, intervals, logger: log });
      poller.start();
      return {
        status: () => poller.status(),
        stop: async () => {
          await poller.stop();
          sink.close();
        },
      };
    },
  });
}

export async function startServe(o: ServeOptions): Promise<RunningServe> {
  const log = o.logger;
  const clock = o.clock ?? systemClock;
  const startedAt = Date.now();
  let record: RecordWatch | null = null;
  const { pool, watchPool } = openPools(o, log, () => record?.connectionLost());
  let db: Db | null = null;
  let journal: ServeJournal | null = null;
  let lease: PollLease | null = null;
  const verifier = callbackVerifier({ threads: o.verifyThreads ?? defaultVerifyThreads() });
  try {
    const opened = openServeSecurityLog(path.join(o.dataDir, SERVE_DB_FILE), () => clock.now());
    db = opened.db;
    if (opened.movedAside) {
      log.warn(
        { movedAside: opened.movedAside },
        "serve's security log has a schema of its own now: the old file (with the desk's schema) was moved aside, its counts copied; delete it when you like",
      );
    }
    journal = openJournal(o.dataDir, o.journalDays ?? DEFAULT_JOURNAL_DAYS);
    record = startRecordWatch({
      pool: watchPool,
      journal,
      logger: log,
      clock,
      ...(o.restoreAfterMs !== undefined ? { restoreAfterMs: o.restoreAfterMs } : {}),
      ...(o.recordCheckEveryMs !== undefined ? { checkEveryMs: o.recordCheckEveryMs } : {}),
    });
    const verification = o.verification;
    const store = teamCallbackStore(pool, { journal, verifier });
    const receiver = await startCallbackReceiver({
      db,
      store,
      // A line per commit, not per callback (receiver.ts says why).
      logStored: 'group',
      host: o.host,
      port: o.port,
      getKeys: () => verification,
      clock,
      logger: log,
      ...(o.trustProxy !== undefined ? { trustProxy: o.trustProxy } : {}),
      rateLimit: { ...SERVE_RATE_LIMIT, ...o.rateLimit },
      routes: (app) =>
        healthRoute(app, {
          pool,
          poller: () => lease?.poller() ?? null,
          pollRole: () => lease?.status() ?? null,
          record: () => record?.report() ?? null,
          startedAt,
        }),
    });
    if (o.poll) lease = startPollingByLease(o.poll, o, pool, clock);
    const openDb = db;
    const openJournalDb = journal;
    const watch = record;
    const openLease = lease;
    let closing: Promise<void> | null = null;
    return {
      url: receiver.url,
      host: receiver.host,
      port: receiver.port,
      receiver,
      pollLease: openLease,
      verifier,
      record: watch,
      storeStats: () => store.stats(),
      close: () =>
        (closing ??= (async () => {
          await receiver.close();
          await openLease?.close();
          await watch.close();
          await verifier.close();
          await pool.end();
          await watchPool.end();
          openDb.close();
          await openJournalDb.close();
        })()),
    };
  } catch (e) {
    await lease?.close();
    await record?.close();
    await verifier.close();
    db?.close();
    await journal?.close();
    await pool.end().catch(() => undefined);
    await watchPool.end().catch(() => undefined);
    throw e;
  }
}
