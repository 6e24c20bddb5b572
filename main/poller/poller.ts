// Polls balances (every 60 s by default) and payment options (every 15 min) into the local cache, or
// into another sink (sink.ts: `serve` writes the team's PostgreSQL).
// One loop per kind; a manual refresh during a run joins it (never two runs of a kind at once); errors
// back off exponentially; a 429 waits at least its Retry-After; status() says online/offline/error.
import type { Logger } from 'pino';
import type { Db } from '../store/sqlite/connection.js';
import type { Clock, Sleep } from '../clock.js';
import { doublingDelay, realSleep } from '../clock.js';
import type { PaymentOption, ServiceClient, WalletBalance } from '../service/types.js';
import { isServiceError, RateLimitedError } from '../service/errors.js';
import type { RunResult } from '../store/sqlite/balances.js';
import type { PollError, PollKind } from '../store/sqlite/poll-runs.js';
import { sqlitePollSink, type PollSink } from './sink.js';

export type { PollKind } from '../store/sqlite/poll-runs.js';

export interface PollIntervals {
  balancesMs: number;
  providersMs: number;
}

export interface BackoffOptions {
  /** First wait after a failure (doubles per consecutive failure). Default 5 s. */
  baseMs: number;
  /** Never wait longer than this after a failure (nor longer than the normal interval). Default 5 min. */
  maxMs: number;
}

export type ConnectionState =
  | { state: 'idle' } // nothing has run yet in this session
  | { state: 'online' }
  | { state: 'offline'; message: string } // no answer from the service (network, timeout, refused)
  | { state: 'error'; kind: string; message: string }; // an answer, but not a usable one (or not configured)

export interface KindStatus {
  running: boolean;
  /** finished_at of the last successful run (from the poll log, so it survives restarts). */
  lastSuccessAt: number | null;
  lastRunAt: number | null;
  /** The latest run's error, when the latest run failed. */
  lastError: (PollError & { at: number }) | null;
  consecutiveFailures: number;
  /** When the loop will poll next (null when stopped). */
  nextRunAt: number | null;
  /** After a 429: no request before this time, not even a manual refresh. */
  notBefore: number | null;
}

export interface PollerStatus {
  started: boolean;
  connection: ConnectionState;
  balances: KindStatus;
  providers: KindStatus;
}

export interface PollerEvent {
  kind: PollKind;
  outcome: 'ok' | 'error';
  /** Snapshots written (balances) or options cached (providers); 0 on error. */
  changed: number;
  status: PollerStatus;
}

export interface PollerOptions {
  /** The local cache the answers go to, unless `sink` is given. */
  db?: Db;
  /** Where each run is recorded (default: `db`, see sink.ts). */
  sink?: PollSink;
  /** The current client, or null when the app is not configured (recorded as a 'not_configured' error). */
  getClient: () => ServiceClient | null;
  clock: Clock;
  sleep?: Sleep;
  /** Fixed, or read before every wait (so a settings change applies at the next wait). */
  intervals: PollIntervals | (() => PollIntervals);
  backoff?: Partial<BackoffOptions>;
  logger?: Logger;
  /** Called after every run (success or failure), e.g. to push an IPC event. Must not throw. */
  onUpdate?: (event: PollerEvent) => void;
}

export interface Poller {
  /** Starts both loops; the first polls run at once. Idempotent. */
  start(): void;
  /** Stops the loops and waits for runs in flight to finish (they are recorded). */
  stop(): Promise<void>;
  /** Polls now (both kinds when `kind` is omitted); joins a run in flight. Resolves with the status after. */
  refresh(kind?: PollKind): Promise<PollerStatus>;
  status(): PollerStatus;
}

interface KindState {
  inFlight: Promise<void> | null;
  lastRunAt: number | null;
  lastSuccessAt: number | null;
  lastError: (PollError & { at: number }) | null;
  consecutiveFailures: number;
  nextDelayMs: number;
  nextRunAt: number | null;
  notBefore: number | null;
  wake: AbortController | null;
  loop: Promise<void> | null;
  ranThisSession: boolean;
}

const KINDS: PollKind[] = ['balances', 'providers'];

export function toPollError(e: unknown): PollError {
  if (isServiceError(e)) {
    return { kind: e.kind, message: e.message, ...(e.status !== undefined ? { httpStatus: e.status } : {}) };
  }
  if (
    e instanceof Error &&
    (e.name === 'MoneyError' ||
      e.name === 'ZodError' ||
      e.name === 'WireFormatError' ||
      e.name === 'MalformedAnswerError')
  ) {
    return { kind: 'unreadable', message: `the service's answer was not usable: ${e.message}` };
  }
  return { kind: 'internal', message: `unexpected error while polling: ${e instanceof Error ? e.message : String(e)}` };
}

export function createPoller(opts: PollerOptions): Poller {
  const { clock } = opts;
  const given = opts.sink ?? (opts.db ? sqlitePollSink(opts.db) : null);
  if (!given) throw new Error('createPoller needs a db or a sink');
  const sink: PollSink = given;
  const sleep = opts.sleep ?? realSleep;
  const backoff: BackoffOptions = { baseMs: 5_000, maxMs: 300_000, ...opts.backoff };
  const intervals = (): PollIntervals => (typeof opts.intervals === 'function' ? opts.intervals() : opts.intervals);
  const log = opts.logger;
  let started = false;
  let stopping = false;

  const state = {} as Record<PollKind, KindState>;
  for (const kind of KINDS) {
    const ok = sink.lastSuccessfulRun(kind);
    const last = sink.lastRun(kind);
    state[kind] = {
      inFlight: null,
      lastRunAt: last ? (last.finishedAt ?? last.startedAt) : null,
      lastSuccessAt: ok ? (ok.finishedAt ?? ok.startedAt) : null,
      lastError:
        last && last.outcome === 'error'
          ? {
              kind: last.errorKind ?? 'internal',
              message: last.errorMessage ?? '',
              at: last.finishedAt ?? last.startedAt,
            }
          : null,
      consecutiveFailures: 0,
      nextDelayMs: 0,
      nextRunAt: null,
      notBefore: null,
      wake: null,
      loop: null,
      ranThisSession: false,
    };
  }

  function kindStatus(kind: PollKind): KindStatus {
    const s = state[kind];
    return {
      running: s.inFlight !== null,
      lastSuccessAt: s.lastSuccessAt,
      lastRunAt: s.lastRunAt,
      lastError: s.lastError,
      consecutiveFailures: s.consecutiveFailures,
      nextRunAt: started ? s.nextRunAt : null,
      notBefore: s.notBefore !== null && s.notBefore > clock.now() ? s.notBefore : null,
    };
  }

  /** Online when every kind that ran in this session last succeeded; else the most recent failure. */
  function connectionState(): ConnectionState {
    const ran = KINDS.filter((k) => state[k].ranThisSession);
    if (ran.length === 0) return { state: 'idle' };
    const failing = ran
      .map((k) => state[k].lastError)
      .filter((e): e is NonNullable<typeof e> => e !== null)
      .sort((a, b) => b.at - a.at);
    const e = failing[0];
    if (!e) return { state: 'online' };
    return e.kind === 'network'
      ? { state: 'offline', message: e.message }
      : { state: 'error', kind: e.kind, message: e.message };
  }

  function status(): PollerStatus {
    return {
      started,
      connection: connectionState(),
      balances: kindStatus('balances'),
      providers: kindStatus('providers'),
    };
  }

  function intervalOf(kind: PollKind): number {
    const i = intervals();
    return kind === 'balances' ? i.balancesMs : i.providersMs;
  }

  function backoffDelay(kind: PollKind, error: unknown): number {
    const s = state[kind];
    const exp = Math.min(doublingDelay(s.consecutiveFailures, backoff.baseMs, backoff.maxMs), intervalOf(kind));
    if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
      return Math.max(exp, error.retryAfterMs);
    }
    return exp;
  }

  async function runOnce(kind: PollKind): Promise<void> {
    const s = state[kind];
    const startedAt = clock.now();
    const client = opts.getClient();
    let result: RunResult<unknown>;
    let thrown: unknown = null;
    if (!client) {
      result = {
        ok: false,
        error: { kind: 'not_configured', message: 'no service connection: set the base URL and keys in Settings' },
      };
    } else {
      try {
        result = {
          ok: true,
          value: kind === 'balances' ? await client.getBalances() : await client.getPaymentOptions(),
        };
      } catch (e) {
        thrown = e;
        result = { ok: false, error: toPollError(e) };
      }
    }
    const finishedAt = clock.now();
    // One transaction: the poll_runs row and (on a usable answer) the cache. A malformed answer is an error here.
    const recorded =
      kind === 'balances'
        ? await sink.recordBalances({ startedAt, finishedAt, result: result as RunResult<WalletBalance[]> })
        : await sink.recordProviders({ startedAt, finishedAt, result: result as RunResult<PaymentOption[]> });
    const { changed, error } = recorded;
    s.lastRunAt = finishedAt;
    s.ranThisSession = true;
    if (error) {
      s.consecutiveFailures += 1;
      s.lastError = { ...error, at: finishedAt };
      const delay = backoffDelay(kind, thrown);
      s.nextDelayMs = delay;
      s.notBefore = thrown instanceof RateLimitedError ? finishedAt + delay : null;
      log?.warn(
        { poll: kind, errorKind: error.kind, httpStatus: error.httpStatus, retryInMs: delay },
        `${kind} poll failed: ${error.message}`,
      );
    } else {
      s.consecutiveFailures = 0;
      s.lastError = null;
      s.lastSuccessAt = finishedAt;
      s.nextDelayMs = intervalOf(kind);
      s.notBefore = null;
      log?.debug({ poll: kind, changed }, `${kind} poll ok`);
    }
    s.nextRunAt = started && !stopping ? finishedAt + s.nextDelayMs : null;
    try {
      opts.onUpdate?.({ kind, outcome: error ? 'error' : 'ok', changed, status: status() });
    } catch (e) {
      log?.error({ err: e }, 'poller onUpdate listener threw');
    }
  }

  /** Runs `kind` now, or joins the run in flight. */
  function run(kind: PollKind): Promise<void> {
    const s = state[kind];
    if (s.inFlight) return s.inFlight;
    s.inFlight = runOnce(kind)
      .catch((e: unknown) => {
        // Only a database failure gets here (the service's errors are recorded above).
        log?.error({ err: e, poll: kind }, 'poll run could not be recorded');
        s.consecutiveFailures += 1;
        s.nextDelayMs = backoffDelay(kind, e);
      })
      .finally(() => {
        s.inFlight = null;
      });
    return s.inFlight;
  }

  async function loop(kind: PollKind): Promise<void> {
    const s = state[kind];
    s.nextDelayMs = 0;
    while (started && !stopping) {
      const delay = s.nextDelayMs;
      s.nextRunAt = clock.now() + delay;
      if (delay > 0) {
        const wake = new AbortController();
        s.wake = wake;
        try {
          await sleep(delay, wake.signal);
        } catch {
          // Woken: stop() (the loop condition ends it) or a manual refresh (wait the new delay instead).
          s.wake = null;
          continue;
        }
        s.wake = null;
      }
      if (!started || stopping) break;
      if (s.notBefore !== null && s.notBefore > clock.now()) {
        s.nextDelayMs = s.notBefore - clock.now();
        continue;
      }
      await run(kind);
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      stopping = false;
      for (const kind of KINDS) state[kind].loop = loop(kind);
    },
    async stop() {
      if (!started) return;
      stopping = true;
      for (const kind of KINDS) state[kind].wake?.abort(new Error('poller stopped'));
      await Promise.all(KINDS.map((k) => state[k].loop));
      await Promise.all(KINDS.map((k) => state[k].inFlight));
      for (const kind of KINDS) {
        state[kind].loop = null;
        state[kind].nextRunAt = null;
      }
      started = false;
      stopping = false;
    },
    async refresh(kind?: PollKind) {
      const kinds = kind ? [kind] : KINDS;
      await Promise.all(
        kinds.map(async (k) => {
          const s = state[k];
          if (!s.inFlight && s.notBefore !== null && s.notBefore > clock.now()) return; // honour Retry-After
          await run(k);
          // Restart the loop's wait from now, so the next automatic poll is one interval after this one.
          s.wake?.abort(new Error('refreshed'));
        }),
      );
      return status();
    },
    status,
  };
}
