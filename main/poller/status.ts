// What the poller knows of each kind (balances, payment options) and the status it reports from that:
// each kind's last run, failures and next run, and the connection as online, offline or in error.
// A kind's last run and last success start from the poll log (the sink), so they survive restarts.
import type { PollError, PollKind } from '../store/sqlite/poll-runs.js';
import type { Words } from '../words/words.shared.js';
import type { PollSink } from './sink.js';

export type ConnectionState =
  | { state: 'idle' } // nothing has run yet in this session
  | { state: 'online' }
  | { state: 'offline'; message: string; words?: Words | undefined } // no answer from the service (network, timeout, refused)
  | { state: 'error'; kind: string; message: string; words?: Words | undefined }; // an answer, but not a usable one (or not configured)

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

/** One kind's loop and runs, as the poller keeps them. */
export interface KindState {
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

export type KindStates = Record<PollKind, KindState>;

export const KINDS: PollKind[] = ['balances', 'providers'];

/** Each kind's state at start: its last run and last success as the sink recorded them, nothing running. */
export function restoredKindStates(sink: PollSink): KindStates {
  const state = {} as KindStates;
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
  return state;
}

function kindStatus(s: KindState, started: boolean, now: number): KindStatus {
  return {
    running: s.inFlight !== null,
    lastSuccessAt: s.lastSuccessAt,
    lastRunAt: s.lastRunAt,
    lastError: s.lastError,
    consecutiveFailures: s.consecutiveFailures,
    nextRunAt: started ? s.nextRunAt : null,
    notBefore: s.notBefore !== null && s.notBefore > now ? s.notBefore : null,
  };
}

/** Online when every kind that ran in this session last succeeded; else the most recent failure. */
function connectionState(state: KindStates): ConnectionState {
  const ran = KINDS.filter((k) => state[k].ranThisSession);
  if (ran.length === 0) return { state: 'idle' };
  const failing = ran
    .map((k) => state[k].lastError)
    .filter((e): e is NonNullable<typeof e> => e !== null)
    .sort((a, b) => b.at - a.at);
  const e = failing[0];
  if (!e) return { state: 'online' };
  return e.kind === 'network'
    ? { state: 'offline', message: e.message, words: e.words }
    : { state: 'error', kind: e.kind, message: e.message, words: e.words };
}

export function pollerStatus(state: KindStates, started: boolean, now: number): PollerStatus {
  return {
    started,
    connection: connectionState(state),
    balances: kindStatus(state.balances, started, now),
    providers: kindStatus(state.providers, started, now),
  };
}
