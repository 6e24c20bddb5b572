// Verifying a group of deliveries, with the expensive checks off the event loop. A callback's HMAC
// (merchant signing key) costs a few microseconds and is checked where the group is, on the receiver's
// thread. The RSA check (RSA-SHA512 with the service's 4,096-bit key) costs about 90 µs on the 2-core
// development machine, more than everything else serve does with a callback: it is needed when no
// signing key is configured, or when a delivery's HMAC is missing or does not match (a forgery flood
// with an rsa-signature header makes every delivery pay it). Those deliveries are verified whole on
// worker threads (verify-worker.ts, the same verifyCallback), so the receiver keeps reading, answering
// and committing meanwhile, and a flood of forgeries costs the workers' time, not the receiver's.
//
// Workers start on the first delivery that needs one (a team whose service signs with HMAC, as the
// sandbox's does, never starts them) and are shared round robin. A worker that fails is replaced and
// the deliveries it held are verified on the receiver's thread instead: never an outcome lost.
import crypto from 'node:crypto';
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { launchWorker } from '../platform/launch-worker.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import { verifyCallback, type IngestInput, type Verification } from './ingest.js';

export interface VerifierStats {
  /** Deliveries verified on the receiver's thread (HMAC, or nothing to check with RSA). */
  inline: number;
  /** Deliveries whose RSA check ran on a worker thread. */
  offThread: number;
  /** Worker threads started so far (0 until a delivery needs one). */
  threads: number;
}

export interface CallbackVerifier {
  /** The group's verifications, in its order. */
  verify(inputs: readonly IngestInput[], keys: SignatureKeys): Promise<Verification[]>;
  stats(): VerifierStats;
  close(): Promise<void>;
}

/** Default workers: a core left for the receiver's thread, at most 4 (the RSA checks are the only work). */
export function defaultVerifyThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

/** What a worker is sent: deliveries to verify whole with these keys (a PEM public key, not a KeyObject). */
export interface VerifyJob {
  id: number;
  inputs: { body: Uint8Array | string | object; headers: IngestInput['headers']; source: IngestInput['source'] }[];
  keys: { signingKey: string | null; servicePublicKey: string | null };
}
export interface VerifyAnswer {
  id: number;
  results?: Verification[];
  error?: string;
}

function header(h: IngestInput['headers'], name: string): string | undefined {
  const v = h[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? v[0] : undefined;
}

/** The headers a check reads (ingest.ts readSignedCallback), as the receiver has them. */
function signatureHeaders(h: IngestInput['headers']): IngestInput['headers'] {
  const out: IngestInput['headers'] = {};
  for (const name of ['hmac-signature', 'rsa-signature']) {
    const v = header(h, name) ?? Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** The service public key as PEM text, for a worker (a KeyObject cannot be posted); null when there is none. */
function pemOf(k: SignatureKeys['servicePublicKey']): string | null {
  if (!k) return null;
  if (typeof k === 'string') return k;
  if (k instanceof crypto.KeyObject) return k.export({ type: 'spki', format: 'pem' }).toString();
  return k.pem;
}

/** A verification worker thread and the checks it was given that wait for its answer, by job id. */
interface VerifyWorker {
  w: Worker;
  pending: Map<number, (a: VerifyAnswer) => void>;
}

/**
 * Starts a verification worker (unref'd while it has nothing to do). When it fails or exits, `gone` is
 * told first, then each check waiting on it is answered with an error (and verified on this thread).
 */
function startVerifyWorker(gone: (entry: VerifyWorker) => void): VerifyWorker {
  const w = launchWorker(import.meta.url, 'verify-worker', null);
  const entry: VerifyWorker = { w, pending: new Map() };
  const fail = (message: string) => {
    gone(entry);
    for (const done of entry.pending.values()) done({ id: -1, error: message });
    entry.pending.clear();
  };
  w.on('message', (a: VerifyAnswer) => {
    const done = entry.pending.get(a.id);
    entry.pending.delete(a.id);
    done?.(a);
  });
  w.on('error', (e) => fail(e.message));
  w.on('exit', (code) => fail(`verification worker exited (${code})`));
  w.unref();
  return entry;
}

/**
 * `threads`: most worker threads for RSA checks (0: every check on the receiver's thread, as the desktop's
 * receiver does).
 */
export function callbackVerifier(o: { threads: number }): CallbackVerifier {
  const stats: VerifierStats = { inline: 0, offThread: 0, threads: 0 };
  const workers: VerifyWorker[] = [];
  let nextWorker = 0;
  let nextId = 0;
  let closed = false;

  /** A new worker while each busy one has checks waiting (up to o.threads), else the next in turn. */
  function worker(): VerifyWorker {
    if (workers.length < o.threads && (workers.length === 0 || workers.every((x) => x.pending.size > 0))) {
      const entry = startVerifyWorker((gone) => {
        const i = workers.indexOf(gone);
        if (i >= 0) workers.splice(i, 1);
      });
      workers.push(entry);
      stats.threads += 1;
      return entry;
    }
    return workers[nextWorker++ % workers.length]!;
  }

  function offThread(inputs: IngestInput[], keys: SignatureKeys): Promise<Verification[]> {
    const job: VerifyJob = {
      id: nextId++,
      // Only the signature headers: the rest of a request's headers would be copied to the thread for nothing.
      inputs: inputs.map((i) => ({ body: i.body, headers: signatureHeaders(i.headers), source: i.source })),
      keys: { signingKey: keys.signingKey ?? null, servicePublicKey: pemOf(keys.servicePublicKey) },
    };
    const entry = worker();
    return new Promise<Verification[]>((resolve) => {
      entry.pending.set(job.id, (a) => {
        if (a.results) {
          stats.offThread += inputs.length;
          resolve(a.results);
        } else {
          // The worker failed: verified here instead, so no delivery goes without its outcome.
          stats.inline += inputs.length;
          resolve(inputs.map((i) => verifyCallback(i, keys)));
        }
      });
      entry.w.ref();
      entry.w.postMessage(job);
    }).finally(() => {
      if (entry.pending.size === 0) entry.w.unref();
    });
  }

  return {
    async verify(inputs, keys) {
      const canRsa = o.threads > 0 && !closed && !!keys.servicePublicKey;
      const hmacOnly: SignatureKeys = { signingKey: keys.signingKey ?? null, servicePublicKey: null };
      const results: Verification[] = new Array<Verification>(inputs.length);
      const rsa: number[] = [];
      inputs.forEach((input, i) => {
        // An rsa-signature that could decide it goes to a worker unless the HMAC verifies here.
        if (canRsa && header(input.headers, 'rsa-signature')) {
          const v = keys.signingKey && header(input.headers, 'hmac-signature') ? verifyCallback(input, hmacOnly) : null;
          if (v && v.result !== 'bad_signature') {
            stats.inline += 1;
            results[i] = v;
          } else rsa.push(i);
          return;
        }
        stats.inline += 1;
        results[i] = verifyCallback(input, keys);
      });
      if (rsa.length) {
        // Split across the workers there are (or may be), so a large group uses each.
        const parts = Math.min(o.threads, rsa.length);
        const size = Math.ceil(rsa.length / parts);
        const chunks: number[][] = [];
        for (let k = 0; k < rsa.length; k += size) chunks.push(rsa.slice(k, k + size));
        const answers = await Promise.all(
          chunks.map((idx) =>
            offThread(
              idx.map((i) => inputs[i]!),
              keys,
            ),
          ),
        );
        chunks.forEach((idx, c) => idx.forEach((i, k) => (results[i] = answers[c]![k]!)));
      }
      return results;
    },
    stats: () => ({ ...stats }),
    async close() {
      closed = true;
      await Promise.all(workers.splice(0).map((x) => x.w.terminate()));
    },
  };
}
