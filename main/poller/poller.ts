// Polls balances (every 60 s by default) and payment options (every 15 min) into the local cache, or
// into another sink (sink.ts: `serve` writes the team's PostgreSQL).
// One loop per kind (here); a manual refresh during a run joins it (never two runs of a kind at once);
// errors back off exponentially and a 429 waits at least its Retry-After (run.ts); status() says
// online/offline/error (status.ts).
import type { Logger } from 'pino';
import type { Db } from '../store/sqlite/connection.js';
import type { Clock, Sleep } from '../clock.js';
import { realSleep } from '../clock.js';
import type { ServiceClient } from '../service/types.js';
import type { PollKind } from '../store/sqlite/poll-runs.js';
import { sqlitePollSink, type PollSink } from './sink.js';
import { KINDS, pollerStatus, restoredKindStates, type PollerEvent, type PollerStatus } from './status.js';
import { run, type BackoffOptions, type PollerParts, type PollIntervals } from './run.js';

export type { PollKind } from '../store/sqlite/poll-runs.js';
export type { ConnectionState, KindStatus, PollerEvent, PollerStatus } from './status.js';
export type { BackoffOptions, PollIntervals } from './run.js';

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

/** One kind's loop: wait the kind's next delay (a refresh or stop wakes it), honour Retry-After, run. */
async function loop(p: PollerParts, kind: PollKind, sleep: Sleep): Promise<void> {
  const s = p.state[kind];
  const { clock, life } = p;
  s.nextDelayMs = 0;
  while (life.started && !life.stopping) {
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
    if (!life.started || life.stopping) break;
    if (s.notBefore !== null && s.notBefore > clock.now()) {
      s.nextDelayMs = s.notBefore - clock.now();
      continue;
    }
    await run(p, kind);
  }
}

function partsOf(opts: PollerOptions): PollerParts {
  const sink = opts.sink ?? (opts.db ? sqlitePollSink(opts.db) : null);
  if (!sink) throw new Error('createPoller needs a db or a sink');
  const { intervals } = opts;
  const p: PollerParts = {
    sink,
    clock: opts.clock,
    getClient: opts.getClient,
    intervals: typeof intervals === 'function' ? intervals : () => intervals,
    backoff: { baseMs: 5_000, maxMs: 300_000, ...opts.backoff },
    logger: opts.logger,
    state: restoredKindStates(sink),
    life: { started: false, stopping: false },
    status: () => pollerStatus(p.state, p.life.started, p.clock.now()),
    onUpdate: opts.onUpdate,
  };
  return p;
}

export function createPoller(opts: PollerOptions): Poller {
  const p = partsOf(opts);
  const { state, life, clock } = p;
  const sleep = opts.sleep ?? realSleep;
  return {
    start() {
      if (life.started) return;
      life.started = true;
      life.stopping = false;
      for (const kind of KINDS) state[kind].loop = loop(p, kind, sleep);
    },
    async stop() {
      if (!life.started) return;
      life.stopping = true;
      for (const kind of KINDS) state[kind].wake?.abort(new Error('poller stopped'));
      await Promise.all(KINDS.map((k) => state[k].loop));
      await Promise.all(KINDS.map((k) => state[k].inFlight));
      for (const kind of KINDS) {
        state[kind].loop = null;
        state[kind].nextRunAt = null;
      }
      life.started = false;
      life.stopping = false;
    },
    async refresh(kind?: PollKind) {
      const kinds = kind ? [kind] : KINDS;
      await Promise.all(
        kinds.map(async (k) => {
          const s = state[k];
          if (!s.inFlight && s.notBefore !== null && s.notBefore > clock.now()) return; // honour Retry-After
          await run(p, k);
          // Restart the loop's wait from now, so the next automatic poll is one interval after this one.
          s.wake?.abort(new Error('refreshed'));
        }),
      );
      return p.status();
    },
    status: p.status,
  };
}
