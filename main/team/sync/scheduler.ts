// When the desk pulls: one pull at a time (a pull asked for while one runs waits for it, and those asking
// meanwhile share one), woken by LISTEN on the beat, covered by a periodic pull for a lost notification,
// and after a failure tried again: every second while the database is silent (team/reconnect.ts: a TCP
// probe, then a real try as soon as it opens), with a doubling back-off after an answer that refused.
//
// The beat is the one pacing between a pulled batch and the screens. A notification after a quiet spell
// pulls at once (an intent recorded at another desk shows here in milliseconds); those within the beat of
// that pull's start share the next pull, so a busy team costs a few pulls a second, each one batch, one
// transaction and one notice to the screens (notices.ts), and each adds at most a beat to the lag. While
// that next pull waits for the beat, more notifications would tell nothing new: the listener is held
// (it stops hearing about new events) and resumed before the pull reads (listener.ts).
import { doublingDelay } from '../../clock.js';
import { TeamUnavailableError } from '../errors.js';
import { isSilence, PROBE_EVERY_MS, reachabilityWatch } from '../reconnect.js';
import type { SyncStatus } from './status.js';

/** The beat: notifications within this of a pull's start share the next one (4 pulls a second at most while busy). */
export const BEAT_MS = 250;
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 15_000;

/** Why a pull runs: `woken` when only notifications of new events asked for it (wake), not a person, a test or the timer. */
export interface PullReason {
  woken: boolean;
}

export interface SchedulerOptions {
  /** One full pull; resolves with how many events it applied. */
  pull: (why: PullReason) => Promise<number>;
  status: SyncStatus;
  now: () => number;
  logger: { info(obj: object, msg?: string): void };
  /** The database's URL, probed while it is silent (none: retried on the back-off). */
  url: string | undefined;
  beatMs?: number | undefined;
  /** The periodic pull's period now (it depends on whether notifications arrive). */
  pullEveryMs: () => number;
  /** A pull succeeded (after the status says so). */
  onPulled?: () => void;
  /** A pull failed (before the status says so). */
  onFailed?: (err: Error) => void;
  /** Hears notifications (listener.ts): held while a pull waits for the beat, resumed before it reads. */
  listening?: { hold(): void; resume(): Promise<void> };
}

/** The longest a pull waits for the listener to listen again: a connection that does not answer is the probe's to find. */
const RESUME_WAIT_MS = 1_000;

export interface Scheduler {
  /** Pulls now, or joins the pull waiting to run; resolves with how many events it applied. */
  pullNow(): Promise<number>;
  /** A notification said the record has new events: pull on the beat. */
  wake(): void;
  /** Pulls now, its outcome handled here (a failure is retried, never thrown). */
  trigger(): Promise<void>;
  /** Runs the periodic pull `ms` from now. */
  schedule(ms: number): void;
  close(): Promise<void>;
}

/** A pull's outcome handled elsewhere (a failure is retried by the scheduler, never thrown). */
const settled = (p: Promise<number>): Promise<void> =>
  p.then(
    () => undefined,
    () => undefined,
  );

/** The listener's resume, waited for at most RESUME_WAIT_MS (the periodic pull covers a listener that never answers). */
async function resumeListening(l: { resume(): Promise<void> }): Promise<void> {
  let t: NodeJS.Timeout | undefined;
  await Promise.race([l.resume(), new Promise<void>((r) => (t = setTimeout(r, RESUME_WAIT_MS)))]);
  clearTimeout(t);
}

export function createScheduler(o: SchedulerOptions): Scheduler {
  const beatMs = o.beatMs ?? BEAT_MS;
  const back = reachabilityWatch(o.url);
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let tail: Promise<unknown> = Promise.resolve();
  let waiting: Promise<number> | null = null;
  /** Whether only notifications asked for the waiting pull (one asked by pullNow or the timer is not). */
  let waitingWoken = true;
  let beat: NodeJS.Timeout | null = null;
  let pulledAt = -Infinity;

  function schedule(ms: number): void {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void trigger(), ms);
    timer.unref?.();
  }

  async function guarded(why: PullReason): Promise<number> {
    try {
      const wasOnline = o.status.get().online && !o.status.get().error;
      const n = await o.pull(why);
      if (!wasOnline)
        o.logger.info({ lastSeq: o.status.get().lastSeq }, 'team sync: up to date with the team database');
      failures = 0;
      back.stop();
      o.status.pulled(o.now());
      schedule(o.pullEveryMs());
      o.onPulled?.();
      return n;
    } catch (e) {
      const err = e as Error;
      o.onFailed?.(err);
      // Silence (nobody answered) is probed every second rather than backed off (team/reconnect.ts).
      const silent = isSilence(err);
      const ms = silent ? PROBE_EVERY_MS : doublingDelay(++failures, RETRY_FIRST_MS, RETRY_MAX_MS);
      o.status.failed(err, { silent: silent && err instanceof TeamUnavailableError, ms });
      if (silent) {
        clearTimeout(timer);
        back.whenReachable(() => void trigger());
      } else schedule(ms);
      throw e;
    }
  }

  function ask(woken: boolean): Promise<number> {
    if (closed) return Promise.reject(new Error('team sync is closed'));
    if (waiting) {
      waitingWoken &&= woken;
      return waiting;
    }
    waitingWoken = woken;
    const p = tail.then(async () => {
      const why = { woken: waitingWoken };
      waiting = null;
      // Listening again before the pull reads: what is committed after this is heard, what before, pulled.
      if (o.listening && !closed) await resumeListening(o.listening);
      pulledAt = performance.now();
      return closed ? 0 : guarded(why);
    });
    waiting = p;
    tail = p.catch(() => undefined);
    return p;
  }

  const pullNow = (): Promise<number> => ask(false);
  const trigger = (): Promise<void> => settled(ask(false));
  const woken = (): Promise<void> => settled(ask(true));

  return {
    pullNow,
    trigger,
    schedule,
    wake() {
      if (closed || beat) return;
      const wait = pulledAt + beatMs - performance.now();
      if (wait <= 0) return void woken();
      beat = setTimeout(() => {
        beat = null;
        void woken();
      }, wait);
      beat.unref?.();
      o.listening?.hold(); // the pull on the beat reads whatever is committed until then
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      if (beat) clearTimeout(beat);
      back.stop();
      waiting = null;
      await tail;
    },
  };
}
