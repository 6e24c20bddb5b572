// The local callback receiver (DESIGN.md "callbacks on a desktop"): POST /callbacks/collections only.
// The body is taken as raw bytes (no JSON parser runs before the signature check), limited to 64 KiB
// (413), and must be application/json (415). 2xx only after the event is durably stored; a bad
// signature is 401 and a security event. Fastify's own request logging is off: bodies are not logged.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';
import { ingestCallback, type IngestOutcome } from './ingest.js';
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
  /** Called after each handled delivery (e.g. to push an IPC event or reconcile). */
  onIngest?: (outcome: IngestOutcome) => void;
}

export interface CallbackReceiver {
  /** e.g. http://127.0.0.1:40123/callbacks/collections — give this to the service (or the sandbox). */
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startCallbackReceiver(opts: ReceiverOptions): Promise<CallbackReceiver> {
  const host = opts.host ?? '127.0.0.1';
  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: CALLBACK_BODY_LIMIT, return503OnClosing: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_req, body, done) => done(null, body));

  app.post(CALLBACK_PATH, async (req, reply) => {
    const ct = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (ct !== 'application/json' || !Buffer.isBuffer(req.body)) {
      return reply.code(415).send({ status: 'error', message: 'content-type must be application/json' });
    }
    let outcome: IngestOutcome;
    try {
      const keys = await opts.getKeys();
      outcome = ingestCallback(
        opts.db,
        { body: req.body, headers: req.headers, source: 'callback' },
        { keys, now: opts.clock.now(), origin: req.ip },
      );
    } catch (e) {
      // Not stored: answer 5xx so the service retries.
      opts.logger?.error({ err: e instanceof Error ? e.message : String(e) }, 'callback ingestion failed');
      return reply.code(500).send({ status: 'error', message: 'could not store the callback; retry later' });
    }
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
    close: async () => {
      await app.close();
    },
  };
}
