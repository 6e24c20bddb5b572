// The local callback receiver (DESIGN.md "callbacks on a desktop"): POST /callbacks/collections only.
// The body is taken as raw bytes (no JSON parser runs before the signature check), limited to 64 KiB
// (413), and must be application/json (415). 2xx only after the event is durably stored; a bad
// signature is 401 and a security event. Fastify's own request logging is off: bodies are not logged.
//
// Group commit: deliveries that arrive within one event-loop turn (or groupCommitWindowMs) are stored in
// ONE transaction, and each is answered only after that commit. If anything in the group fails, the
// group is rolled back and every delivery is stored again on its own, so one bad delivery gets its 5xx
// and the others are still stored and answered 2xx.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';
import { ingestCallback, type IngestInput, type IngestOutcome } from './ingest.js';
import type { SignatureKeys } from './verify.js';

export const CALLBACK_PATH = '/callbacks/collections';
export const CALLBACK_BODY_LIMIT = 64 * 1024;

export interface ReceiverLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ReceiverOptions {
  db: Db;
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
}

export interface ReceiverStats {
  /** Deliveries handed to ingestion, commits made for them, and the largest group in one commit. */
  deliveries: number;
  commits: number;
  largestGroup: number;
  /** Groups that failed as a whole and were stored one by one instead. */
  fallbacks: number;
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

interface Pending {
  input: IngestInput;
  now: number;
  origin: string;
  resolve: (r: { outcome: IngestOutcome } | { error: unknown }) => void;
}

/** Collects deliveries and stores each group in one transaction (see the top of this file). */
function groupCommitter(opts: ReceiverOptions, stats: Omit<ReceiverStats, 'waiting'>) {
  const maxGroup = Math.max(1, opts.maxGroup ?? 256);
  const windowMs = Math.max(0, opts.groupCommitWindowMs ?? 0);
  const queue: Pending[] = [];
  let scheduled: { cancel(): void } | null = null;

  const schedule = () => {
    if (scheduled) return;
    const run = () => void flush();
    if (windowMs > 0) {
      const t = setTimeout(run, windowMs);
      scheduled = { cancel: () => clearTimeout(t) };
    } else {
      const t = setImmediate(run);
      scheduled = { cancel: () => clearImmediate(t) };
    }
  };

  async function flush(): Promise<void> {
    scheduled?.cancel();
    scheduled = null;
    const group = queue.splice(0, maxGroup);
    if (queue.length) schedule();
    if (group.length === 0) return;
    let keys: SignatureKeys;
    try {
      keys = await opts.getKeys();
    } catch (error) {
      for (const p of group) p.resolve({ error });
      return;
    }
    const ingest = (p: Pending) => ingestCallback(opts.db, p.input, { keys, now: p.now, origin: p.origin });
    stats.deliveries += group.length;
    let results: ({ outcome: IngestOutcome } | { error: unknown })[];
    try {
      // One commit for the group; nothing is answered before it returns.
      results = opts.db.transaction(() => group.map((p) => ({ outcome: ingest(p) })))();
      stats.commits += 1;
      stats.largestGroup = Math.max(stats.largestGroup, group.length);
    } catch {
      // Rolled back whole: store each on its own so one failure costs only its own delivery.
      if (group.length > 1) stats.fallbacks += 1;
      results = group.map((p) => {
        try {
          const outcome = ingest(p);
          stats.commits += 1;
          return { outcome };
        } catch (error) {
          return { error };
        }
      });
      stats.largestGroup = Math.max(stats.largestGroup, 1);
    }
    group.forEach((p, i) => p.resolve(results[i]!));
  }

  return {
    submit(input: IngestInput, now: number, origin: string): Promise<{ outcome: IngestOutcome } | { error: unknown }> {
      return new Promise((resolve) => {
        queue.push({ input, now, origin, resolve });
        if (queue.length >= maxGroup) void flush();
        else schedule();
      });
    },
    waiting: () => queue.length,
    /** Stores whatever is waiting now (closing). */
    async drain(): Promise<void> {
      while (queue.length) await flush();
    },
  };
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startCallbackReceiver(opts: ReceiverOptions): Promise<CallbackReceiver> {
  const host = opts.host ?? '127.0.0.1';
  const stats: Omit<ReceiverStats, 'waiting'> = { deliveries: 0, commits: 0, largestGroup: 0, fallbacks: 0 };
  const committer = groupCommitter(opts, stats);
  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: CALLBACK_BODY_LIMIT, return503OnClosing: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_req, body, done) => done(null, body));

  app.post(CALLBACK_PATH, async (req, reply) => {
    const ct = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (ct !== 'application/json' || !Buffer.isBuffer(req.body)) {
      return reply.code(415).send({ status: 'error', message: 'content-type must be application/json' });
    }
    const r = await committer.submit({ body: req.body, headers: req.headers, source: 'callback' }, opts.clock.now(), req.ip);
    if ('error' in r) {
      // Not stored: answer 5xx so the service retries.
      const e = r.error;
      opts.logger?.error({ err: e instanceof Error ? e.message : String(e) }, 'callback ingestion failed');
      return reply.code(500).send({ status: 'error', message: 'could not store the callback; retry later' });
    }
    const outcome = r.outcome;
    try {
      opts.onIngest?.(outcome);
    } catch (e) {
      opts.logger?.warn({ err: e instanceof Error ? e.message : String(e) }, 'callback listener failed');
    }
    switch (outcome.result) {
      case 'imported':
        opts.logger?.info({ reference: outcome.reference, status: outcome.status, orphan: outcome.orphan }, 'callback stored');
        return reply.code(200).send({ status: 'ok', result: outcome.orphan ? 'orphan' : 'stored' });
      case 'duplicate':
        return reply.code(200).send({ status: 'ok', result: 'duplicate' });
      case 'bad_signature':
        opts.logger?.warn({ reference: outcome.reference, signature: outcome.signature, reason: outcome.reason, ip: req.ip }, 'callback with a bad signature rejected');
        return reply.code(401).send({ status: 'error', message: `signature ${outcome.signature}` });
      case 'malformed':
        return reply.code(400).send({ status: 'error', message: outcome.message });
    }
  });

  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ status: 'error', message: 'not found' }));
  app.setErrorHandler((err: { statusCode?: number; message?: string }, _req, reply) => {
    const code = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    const message =
      code === 413 ? `body larger than ${CALLBACK_BODY_LIMIT} bytes` : code === 415 ? 'content-type must be application/json' : code < 500 ? 'bad request' : 'internal error';
    return reply.code(code).send({ status: 'error', message });
  });

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
    },
  };
}
