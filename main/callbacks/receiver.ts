// The local callback receiver (DESIGN.md "callbacks on a desktop"): POST /callbacks/collections only.
// The body is taken as raw bytes (no JSON parser runs before the signature check), limited to 64 KiB
// (413), and must be application/json (415). 2xx only after the event is durably stored; a bad
// signature is 401; a body nested deeper than a callback ever is, 422 (shape-limits.ts: it will never be
// stored, so it is no 5xx, which the service would retry forever). Refused deliveries (bad or missing
// signature, malformed, too large, too deep, wrong type, over the rate limit) are only counted in the
// bounded security log (security-log.ts), never stored whole.
// Fastify's own request logging is off: bodies are not logged.
//
// Abuse limits: a token bucket per remote address (rate-limit.ts; 429 + Retry-After), and server
// time-outs so a client trickling a body or headers is disconnected (requestTimeoutMs).
//
// Group commit (group-commit.ts): deliveries that arrive together are stored in one transaction, each
// answered only after it. Where a group is committed is the store's business (callback-store.ts): the
// desktop's SQLite by default, the team's PostgreSQL under `serve`; a store that cannot be reached is
// answered 503 so the service retries.
import http from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Db } from '../store/sqlite/connection.js';
import type { Clock } from '../clock.js';
import { securityRecord, type IngestOutcome } from './ingest.js';
import type { CallbackStore } from './callback-store.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import { SecurityLog, type SecurityReason } from './security-log.js';
import { RateLimiter, type RateLimitOptions } from './rate-limit.js';
import { groupCommitter, type CommitStats, type GroupCommitter } from './group-commit.js';
import { CALLBACK_BODY_LIMIT, refusalLogLine, type ShapeRefusal } from './shape-limits.js';
import { messageOf } from '../errors.shared.js';

const CALLBACK_PATH = '/callbacks/collections';
const HOUR_MS = 3_600_000;

export interface ReceiverLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ReceiverOptions {
  /** The desktop's database: where refusals are counted (unless `securityLog` says otherwise). */
  db: Db;
  /**
   * Where groups of callbacks are committed: a desk's SQLite through its ledger (callback-store.ts
   * sqliteCallbackStore), or serve's team database.
   */
  store: CallbackStore;
  /** Extra routes beside POST /callbacks/collections (serve's /healthz); not rate limited. */
  routes?: (app: FastifyInstance) => void;
  /** Fastify's trustProxy: whose X-Forwarded-For names the client (for the rate limit and the security log). */
  trustProxy?: boolean | string | string[];
  /** Loopback by default; anything else is the user's explicit choice. */
  host?: string;
  /** 0 = any free port. */
  port?: number;
  getKeys: () => SignatureKeys | Promise<SignatureKeys>;
  clock: Clock;
  logger?: ReceiverLogger;
  /** Called after each handled delivery (e.g. to push an IPC event or reconcile), once it is committed. */
  onIngest?: (outcome: IngestOutcome) => void;
  /**
   * How long the first delivery of a group waits for others to share its commit: 0 (default) = the
   * rest of this event-loop turn (what has already arrived), no added latency.
   */
  groupCommitWindowMs?: number;
  /** Most deliveries in one commit (default 256). */
  maxGroup?: number;
  /** Per-source request rate (rate-limit.ts has the defaults and why). */
  rateLimit?: RateLimitOptions;
  /** Server time-outs (defaults in DEFAULT_TIMEOUTS). */
  timeouts?: Partial<ReceiverTimeouts>;
  /** Where refused deliveries are counted (default: one owned by this receiver, flushed on close). */
  securityLog?: SecurityLog;
  /**
   * How stored callbacks are logged: 'each' (default) a line per callback; 'group' one line per commit
   * with its references (serve: at thousands a second, a line each would cost more than the rest of a
   * callback's work, and journald's as much again).
   */
  logStored?: 'each' | 'group';
}

export interface ReceiverTimeouts {
  /** Whole request, headers and body, from the first byte: a slow body is cut off after this. */
  requestTimeoutMs: number;
  /** Headers complete within this. */
  headersTimeoutMs: number;
  /** A socket with no bytes at all for this long is closed. */
  idleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

// A callback is under 64 KiB and the service sends it in one go: seconds are plenty even on a slow link,
// and a client that takes longer holds a socket for nothing.
const DEFAULT_TIMEOUTS: ReceiverTimeouts = {
  requestTimeoutMs: 15_000,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
};

export interface ReceiverStats extends CommitStats {
  /** Deliveries received and waiting for their group's commit. */
  waiting: number;
}

export interface CallbackReceiver {
  /** e.g. http://127.0.0.1:40123/callbacks/collections — give this to the service (or the sandbox). */
  url: string;
  host: string;
  port: number;
  stats(): ReceiverStats;
  close(): Promise<void>;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Counts a refused delivery in the security log (reason, source address, a short sample). */
type Count = (reason: SecurityReason, source: string, sample?: string) => void;

/** Fastify on a Node server with the receiver's time-outs; no request logging (bodies are not logged). */
function receiverApp(opts: ReceiverOptions): FastifyInstance {
  const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  // Node checks requestTimeout/headersTimeout on a timer; check often enough that a short (test) limit holds.
  const checkEvery = Math.max(50, Math.min(1000, Math.floor(Math.min(t.requestTimeoutMs, t.headersTimeoutMs) / 4)));
  return Fastify({
    logger: false,
    bodyLimit: CALLBACK_BODY_LIMIT,
    return503OnClosing: true,
    ...(opts.trustProxy !== undefined ? { trustProxy: opts.trustProxy } : {}),
    serverFactory: (handler) => {
      const server = http.createServer(
        {
          requestTimeout: t.requestTimeoutMs,
          headersTimeout: Math.min(t.headersTimeoutMs, t.requestTimeoutMs),
          keepAliveTimeout: t.keepAliveTimeoutMs,
          connectionsCheckingInterval: checkEvery,
        },
        handler,
      );
      server.setTimeout(t.idleTimeoutMs, (socket) => socket.destroy());
      return server;
    },
  });
}

/** Before the body is read: a source over its rate is refused (429) and only counted. */
function refuseOverRate(app: FastifyInstance, limiter: RateLimiter, count: Count): void {
  app.addHook('onRequest', async (req, reply) => {
    if ((req.routeOptions.config as { rateLimit?: boolean } | undefined)?.rateLimit === false) return;
    const wait = limiter.take(req.ip, Date.now());
    if (wait > 0) {
      count('rate_limited', req.ip);
      return reply
        .code(429)
        .header('retry-after', String(Math.ceil(wait / 1000)))
        .header('connection', 'close')
        .send({ status: 'error', message: 'too many requests from this address; retry later' });
    }
  });
}

/** What the callback route needs, made once per receiver. */
interface Route {
  opts: ReceiverOptions;
  store: CallbackStore;
  committer: GroupCommitter;
  count: Count;
  logRefusal: (refusal: ShapeRefusal, source: string, bytes: number) => void;
}

/**
 * Logs the first shape refusal of each reason in an hour, and only counts the rest (the security log has
 * them all): one line tells whoever reads the log, and a sender repeating it cannot fill the log.
 */
function refusalLogger(opts: ReceiverOptions): Route['logRefusal'] {
  const logged = new Map<ShapeRefusal['reason'], number>();
  return (refusal, source, bytes) => {
    const hour = Math.floor(opts.clock.now() / HOUR_MS);
    if (logged.get(refusal.reason) === hour) return;
    logged.set(refusal.reason, hour);
    opts.logger?.warn({ reason: refusal.reason, source, bytes }, refusalLogLine(refusal));
  };
}

/** POST /callbacks/collections: the raw body into the next group, answered once that group is committed. */
async function receive(route: Route, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { opts, store, count } = route;
  const ct = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (ct !== 'application/json' || !Buffer.isBuffer(req.body)) {
    count('unsupported_type', req.ip, `content-type: ${ct}`);
    return reply.code(415).send({ status: 'error', message: 'content-type must be application/json' });
  }
  const r = await route.committer.submit(
    { body: req.body, headers: req.headers, source: 'callback' },
    opts.clock.now(),
  );
  if ('error' in r) {
    // Not stored: answer 5xx so the service retries.
    const e = r.error;
    opts.logger?.error({ err: messageOf(e) }, 'callback ingestion failed');
    if (store.isUnavailable?.(e))
      return reply
        .code(503)
        .header('retry-after', '5')
        .send({ status: 'error', message: 'the store cannot be reached; retry later' });
    return reply.code(500).send({ status: 'error', message: 'could not store the callback; retry later' });
  }
  const outcome = r.outcome;
  if (outcome.result === 'bad_signature' || outcome.result === 'malformed') {
    const { reason, sample } = securityRecord(outcome, req.body);
    count(reason, req.ip, sample);
    if (outcome.result === 'malformed' && outcome.refusal)
      route.logRefusal({ reason: outcome.refusal, message: outcome.message }, req.ip, req.body.length);
  }
  try {
    opts.onIngest?.(outcome);
  } catch (e) {
    opts.logger?.warn({ err: messageOf(e) }, 'callback listener failed');
  }
  return answer(opts, reply, outcome);
}

/**
 * The answer to a delivery its group committed: 200 stored (or a repeat), 401 bad signature, 400 malformed,
 * 422 past the shape limits (well-formed, but never to be stored).
 */
function answer(opts: ReceiverOptions, reply: FastifyReply, outcome: IngestOutcome): FastifyReply {
  switch (outcome.result) {
    case 'imported':
      if (opts.logStored !== 'group')
        opts.logger?.info(
          { reference: outcome.reference, status: outcome.status, orphan: outcome.orphan },
          'callback stored',
        );
      return reply.code(200).send({ status: 'ok', result: outcome.orphan ? 'orphan' : 'stored' });
    case 'duplicate':
      return reply.code(200).send({ status: 'ok', result: 'duplicate' });
    case 'bad_signature':
      // Counted in the security log, not logged one by one: a flood must not fill the log either.
      return reply.code(401).send({ status: 'error', message: `signature ${outcome.signature}` });
    case 'malformed':
      return reply.code(outcome.refusal ? 422 : 400).send({ status: 'error', message: outcome.message });
  }
}

/** A request Fastify refused before the route (too large, wrong type, unreadable): counted, answered plainly. */
function refuse(
  err: { statusCode?: number; message?: string },
  req: FastifyRequest,
  reply: FastifyReply,
  count: Count,
): FastifyReply {
  const code = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
  if (code === 413) count('too_large', req.ip, `content-length: ${String(req.headers['content-length'] ?? '?')}`);
  else if (code === 415)
    count('unsupported_type', req.ip, `content-type: ${String(req.headers['content-type'] ?? '')}`);
  else if (code < 500) count('malformed', req.ip, err.message ?? 'bad request');
  const message =
    code === 413
      ? `body larger than ${CALLBACK_BODY_LIMIT} bytes`
      : code === 415
        ? 'content-type must be application/json'
        : code < 500
          ? 'bad request'
          : 'internal error';
  return reply.code(code).send({ status: 'error', message });
}

export async function startCallbackReceiver(opts: ReceiverOptions): Promise<CallbackReceiver> {
  const host = opts.host ?? '127.0.0.1';
  const stats: CommitStats = { deliveries: 0, commits: 0, largestGroup: 0, fallbacks: 0 };
  const committer = groupCommitter(opts, opts.store, stats);
  const securityLog = opts.securityLog ?? new SecurityLog(opts.db);
  const count: Count = (reason, source, sample) => securityLog.record(reason, source, opts.clock.now(), sample);
  const app = receiverApp(opts);
  refuseOverRate(app, new RateLimiter(opts.rateLimit), count);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT },
    (_req, body, done) => done(null, body),
  );
  const route: Route = { opts, store: opts.store, committer, count, logRefusal: refusalLogger(opts) };
  app.post(CALLBACK_PATH, (req, reply) => receive(route, req, reply));
  opts.routes?.(app);
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ status: 'error', message: 'not found' }));
  app.setErrorHandler((err: { statusCode?: number; message?: string }, req, reply) => refuse(err, req, reply, count));

  await app.listen({ host, port: opts.port ?? 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (opts.port ?? 0);
  return {
    url: `http://${hostForUrl(host)}:${port}${CALLBACK_PATH}`,
    host,
    port,
    stats: () => ({ ...stats, waiting: committer.waiting() }),
    close: async () => {
      // Stop taking deliveries, store (and so answer) the ones waiting for their group, then finish.
      const closing = app.close();
      await committer.drain();
      await closing;
      await committer.drain();
      securityLog.flush(opts.clock.now());
    },
  };
}
