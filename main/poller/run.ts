// One poll of one kind: ask the service, record the run through the sink (the poll log and, on a usable
// answer, the cache, in one transaction), then set the kind's next wait: its interval after a success,
// a doubling back-off after a failure, at least a 429's Retry-After. A run of a kind already in flight
// is joined, never started twice.
import type { Logger } from 'pino';
import { words } from '../words/words.shared.js';
import type { Clock } from '../clock.js';
import { doublingDelay } from '../clock.js';
import type { PaymentOption, ServiceClient, WalletBalance } from '../service/types.js';
import { isServiceError, RateLimitedError } from '../service/errors.js';
import {
  collectionOptions,
  unreadOptionsText,
  unreadOptionsWords,
  type CollectionOptions,
} from '../service/collection-options.js';
import type { RunResult } from '../store/sqlite/balances.js';
import type { PollError, PollKind } from '../store/sqlite/poll-runs.js';
import type { PollSink, RecordedRun } from './sink.js';
import type { KindStates, PollerEvent, PollerStatus } from './status.js';
import { messageOf } from '../errors.shared.js';

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

/** What a poller's runs and loops share. */
export interface PollerParts {
  sink: PollSink;
  clock: Clock;
  getClient: () => ServiceClient | null;
  intervals: () => PollIntervals;
  backoff: BackoffOptions;
  logger: Logger | undefined;
  state: KindStates;
  /** Whether the loops run, and whether they are being stopped. */
  life: { started: boolean; stopping: boolean };
  status(): PollerStatus;
  /** Told after every run (see PollerOptions.onUpdate). */
  onUpdate: ((event: PollerEvent) => void) | undefined;
}

function toPollError(e: unknown): PollError {
  if (isServiceError(e)) {
    return {
      kind: e.kind,
      message: e.message,
      ...(e.status !== undefined ? { httpStatus: e.status } : {}),
      ...(e.words ? { words: e.words } : {}),
    };
  }
  if (
    e instanceof Error &&
    (e.name === 'MoneyError' ||
      e.name === 'ZodError' ||
      e.name === 'WireFormatError' ||
      e.name === 'MalformedAnswerError')
  ) {
    return {
      kind: 'unreadable',
      message: `the service's answer was not usable: ${e.message}`,
      words: words('status.pollUnusable', { reason: e.message }),
    };
  }
  return { kind: 'internal', message: `unexpected error while polling: ${messageOf(e)}` };
}

function intervalOf(p: PollerParts, kind: PollKind): number {
  const i = p.intervals();
  return kind === 'balances' ? i.balancesMs : i.providersMs;
}

function backoffDelay(p: PollerParts, kind: PollKind, error: unknown): number {
  const s = p.state[kind];
  const exp = Math.min(doublingDelay(s.consecutiveFailures, p.backoff.baseMs, p.backoff.maxMs), intervalOf(p, kind));
  if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
    return Math.max(exp, error.retryAfterMs);
  }
  return exp;
}

/** The service's answer for `kind` as a run's result, and what was thrown when it failed. */
async function ask(
  p: PollerParts,
  kind: PollKind,
  client: ServiceClient | null,
): Promise<{ result: RunResult<unknown>; thrown: unknown }> {
  if (!client) {
    return {
      result: {
        ok: false,
        error: {
          kind: 'not_configured',
          message: 'no service connection: set the base URL and keys in Settings',
          words: words('status.noConnection'),
        },
      },
      thrown: null,
    };
  }
  try {
    if (kind === 'balances') return { result: { ok: true, value: await client.getBalances() }, thrown: null };
    return optionsResult(await collectionOptions(client, await heldCurrencies(p)));
  } catch (e) {
    return { result: { ok: false, error: toPollError(e) }, thrown: e };
  }
}

/**
 * The currencies the options are asked for: those of the balances recorded last, once a balances run in
 * flight (the first of a start) has ended, so one start asks the balance inquiry once. None known: undefined,
 * and collectionOptions asks the balance inquiry itself.
 */
async function heldCurrencies(p: PollerParts): Promise<string[] | undefined> {
  await p.state.balances.inFlight;
  const held = p.sink.heldCurrencies?.() ?? [];
  return held.length > 0 ? held : undefined;
}

/**
 * The options of every currency read, or a failure that names each currency not read (with what was read
 * as its `partial`, stored all the same). The first currency's error decides the kind and the back-off.
 */
function optionsResult(r: CollectionOptions): { result: RunResult<unknown>; thrown: unknown } {
  const first = r.unread[0];
  if (!first) return { result: { ok: true, value: r.options }, thrown: null };
  const error: PollError = {
    ...toPollError(first.error),
    message: unreadOptionsText(r),
    words: unreadOptionsWords(r),
  };
  const partial = r.read.length > 0 ? { partial: { value: r.options, currencies: r.read } } : {};
  return { result: { ok: false, error, ...partial }, thrown: first.error };
}

/** The kind's state after a recorded run: its failures or success, and its next wait. */
function noteRun(p: PollerParts, kind: PollKind, recorded: RecordedRun, thrown: unknown, finishedAt: number): void {
  const s = p.state[kind];
  const { changed, error } = recorded;
  s.lastRunAt = finishedAt;
  s.ranThisSession = true;
  if (error) {
    s.consecutiveFailures += 1;
    s.lastError = { ...error, at: finishedAt };
    const delay = backoffDelay(p, kind, thrown);
    s.nextDelayMs = delay;
    s.notBefore = thrown instanceof RateLimitedError ? finishedAt + delay : null;
    p.logger?.warn(
      { poll: kind, errorKind: error.kind, httpStatus: error.httpStatus, retryInMs: delay },
      `${kind} poll failed: ${error.message}`,
    );
  } else {
    s.consecutiveFailures = 0;
    s.lastError = null;
    s.lastSuccessAt = finishedAt;
    s.nextDelayMs = intervalOf(p, kind);
    s.notBefore = null;
    p.logger?.debug({ poll: kind, changed }, `${kind} poll ok`);
  }
  s.nextRunAt = p.life.started && !p.life.stopping ? finishedAt + s.nextDelayMs : null;
}

async function runOnce(p: PollerParts, kind: PollKind): Promise<void> {
  const startedAt = p.clock.now();
  const { result, thrown } = await ask(p, kind, p.getClient());
  const finishedAt = p.clock.now();
  // One transaction: the poll_runs row and (on a usable answer) the cache. A malformed answer is an error here.
  const recorded =
    kind === 'balances'
      ? await p.sink.recordBalances({ startedAt, finishedAt, result: result as RunResult<WalletBalance[]> })
      : await p.sink.recordProviders({ startedAt, finishedAt, result: result as RunResult<PaymentOption[]> });
  noteRun(p, kind, recorded, thrown, finishedAt);
  try {
    p.onUpdate?.({ kind, outcome: recorded.error ? 'error' : 'ok', changed: recorded.changed, status: p.status() });
  } catch (e) {
    p.logger?.error({ err: e }, 'poller onUpdate listener threw');
  }
}

/** Runs `kind` now, or joins the run in flight. */
export function run(p: PollerParts, kind: PollKind): Promise<void> {
  const s = p.state[kind];
  if (s.inFlight) return s.inFlight;
  s.inFlight = runOnce(p, kind)
    .catch((e: unknown) => {
      // Only a database failure gets here (the service's errors are recorded by runOnce).
      p.logger?.error({ err: e, poll: kind }, 'poll run could not be recorded');
      s.consecutiveFailures += 1;
      s.nextDelayMs = backoffDelay(p, kind, e);
    })
    .finally(() => {
      s.inFlight = null;
    });
  return s.inFlight;
}
