// Back quickly after an outage (issue 29). A failure the team database answered (a refusal, an error it
// sent, TLS that does not check) is retried with a doubling back-off: asking again at once would get the
// same answer, and a server in trouble is spared. Silence is not: a refused or timed-out connection, a
// server shutting down or starting up. Nobody is there to spare, and a back-off grown to 15 s would keep a
// desk away up to 15 s after a failover that took longer than a few seconds. So while the database is
// silent, a desk (and serve) probes cheaply at a steady pace, a TCP connect to its host and port every
// second, and tries for real as soon as one opens: back within about a second of the database, however
// long the outage was. A TCP connect costs the server nothing while it is down (nothing listens) and
// spares the sign-in and TLS of a real try; the real try that follows says whether it is truly back.
import net from 'node:net';
import { doublingDelay } from '../clock.js';
import { parseDatabaseUrl } from './database-url.js';
import { TeamTlsError, TeamUnavailableError } from './errors.js';

/** The steady pace of the probe while the team database is silent. */
export const PROBE_EVERY_MS = 1_000;

/**
 * Whether `e` is silence (no server answered, or it is going away or not up yet) rather than an answer.
 * TLS that does not check, a writer that waited too long for its turn (55P03) and a cancelled statement
 * (57014) are answers: the server is there.
 */
export function isSilence(e: unknown): boolean {
  if (!(e instanceof TeamUnavailableError) || e instanceof TeamTlsError) return false;
  return e.code !== '55P03' && e.code !== '57014';
}

/** The wait before try `failures` + 1: doubling for an answer, never more than PROBE_EVERY_MS for silence. */
export function retryDelay(e: unknown, failures: number, firstMs: number, maxMs: number): number {
  const doubling = doublingDelay(failures, firstMs, maxMs);
  return isSilence(e) ? Math.min(PROBE_EVERY_MS, doubling) : doubling;
}

/** Where a database URL's server listens: a TCP host and port, or a Unix socket (a host that is a folder). */
function target(url: string, env: NodeJS.ProcessEnv): net.NetConnectOpts {
  const u = parseDatabaseUrl(url);
  const host = decodeURIComponent(u.hostname) || env.PGHOST || 'localhost';
  const port = Number(u.port || env.PGPORT || 5432);
  return host.startsWith('/') ? { path: `${host}/.s.PGSQL.${port}` } : { host, port };
}

/** Whether a connection to the database's host and port opens within `timeoutMs` (closed at once). */
function canConnect(url: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  let to: net.NetConnectOpts;
  try {
    to = target(url, env);
  } catch {
    return Promise.resolve(true); // not a URL this can probe: let the real try say what is wrong
  }
  return new Promise((resolve) => {
    const socket = net.connect({ ...to, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

export interface ReachabilityWatch {
  /**
   * Calls `then` once the database can be reached again: probes every PROBE_EVERY_MS (the first after
   * one period) until a connection opens. One wait at a time: a second call while one runs only replaces
   * what it calls.
   */
  whenReachable(then: () => void): void;
  /** Ends a wait (the database answered some other way, or closing). */
  stop(): void;
}

/** The steady probe of `url` (undefined: no address to probe, so `then` comes after one period). */
export function reachabilityWatch(url: string | undefined, everyMs = PROBE_EVERY_MS): ReachabilityWatch {
  let timer: NodeJS.Timeout | null = null;
  let next: (() => void) | null = null;
  let round = 0;
  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    next = null;
    round++;
  };
  function wait(ms: number, mine: number): void {
    timer = setTimeout(() => {
      timer = null;
      const started = performance.now();
      void (url ? canConnect(url, everyMs) : Promise.resolve(true)).then((ok) => {
        if (mine !== round || !next) return; // stopped, or another wait began
        if (ok) {
          const then = next;
          stop();
          then();
        } else wait(Math.max(0, everyMs - (performance.now() - started)), mine);
      });
    }, ms);
    timer.unref?.();
  }
  return {
    whenReachable(then) {
      const waiting = next !== null;
      next = then;
      if (!waiting) wait(everyMs, round);
    },
    stop,
  };
}
