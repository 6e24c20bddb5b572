// How a desk stops, the one way for every shell (the Chromium shell of `merchant-desk start`, Electron)
// and for a stop asked by the system (SIGTERM, SIGINT) or by the person (closing the window): the core
// closes (a team desk's sync ends after the slice it is applying, which commits with its seq; the
// outbox push, the pool and the LISTEN connection end; SQLite closes), then the process leaves. A
// close that has not finished in time is not waited for: everything the desk wrote is committed
// transaction by transaction, so leaving then loses nothing, and a restart carries on from the last seq.
import type { Logger } from 'pino';

/** The signals that ask a desk to stop. */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/** How long a stop may take before the process leaves anyway (issue 23: a desk exits within 2 s). */
const STOP_WITHIN_MS = 1_500;

export interface StopSignals {
  /** Settles with the first stop signal's name. */
  readonly requested: Promise<NodeJS.Signals>;
  /** Stops listening (the stop is done, or the caller leaves another way). */
  dispose(): void;
}

/**
 * Listens for SIGTERM and SIGINT: the first asks for the stop (`onStop`, and `requested` settles); a
 * second one while the stop runs leaves at once (exit code 130), as a person pressing Ctrl+C twice means.
 */
export function onStopSignals(
  onStop: (signal: NodeJS.Signals) => void = () => undefined,
  exit: (code: number) => void = (code) => process.exit(code),
): StopSignals {
  let signals = 0;
  let resolve!: (s: NodeJS.Signals) => void;
  const requested = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const handler = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      exit(130);
      return;
    }
    resolve(signal);
    onStop(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  return {
    requested,
    dispose: () => {
      for (const s of STOP_SIGNALS) process.off(s, handler);
    },
  };
}

/**
 * Runs `close` and resolves when it is done or `withinMs` has passed, whichever is first: true when it
 * finished (or failed: logged) in time. The close keeps running behind a late answer.
 */
export async function closeWithin(
  close: () => Promise<void>,
  logger: Pick<Logger, 'warn' | 'error'>,
  withinMs: number = STOP_WITHIN_MS,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), withinMs);
  });
  const done = close().then(
    () => true as const,
    (e: unknown) => {
      logger.error({ err: e }, 'closing failed');
      return true as const;
    },
  );
  try {
    const ok = await Promise.race([done, late]);
    if (!ok)
      logger.warn({ withinMs }, 'the close did not finish in time: leaving anyway (everything written is committed)');
    return ok;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Leaves with `code` once nothing else is running, or after `graceMs` if something still holds the
 * process (a socket, a timer of a library): a stopped desk never lingers.
 */
export function leaveSoon(code: number, graceMs = 300, exit: (code: number) => void = (c) => process.exit(c)): void {
  process.exitCode = code;
  setTimeout(() => exit(code), graceMs).unref();
}
