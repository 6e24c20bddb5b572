/** Time as the app sees it; tests substitute a controllable clock. Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Waits, cancellably; tests substitute one tied to their clock. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * The wait before try number `failures` + 1 of a doubling back-off (`failures` from 1): `firstMs`, then
 * twice the previous wait, never more than `maxMs`. The one definition behind every retry that doubles:
 * the poller, the service client (which jitters it), the team pull and push, and the lock's wait after
 * wrong answers.
 */
export function doublingDelay(failures: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}
