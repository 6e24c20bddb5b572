// Waiting in tests: one way, with the thing waited for named in the failure. Plain timers, no vitest
// import, because the day's desk children and the benches (run by node, not vitest) wait with it too.

/** A plain pause (a person waiting, a back-off); to wait for something, `until`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once `ok()` is true (checked at once, then every `everyMs`); throws "not within N ms: <what>"
 * when `ms` pass first. Resolves with how long it took, for the tests that report it.
 */
export async function until(
  what: string,
  ok: () => boolean | Promise<boolean>,
  ms = 10_000,
  everyMs = 50,
): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await ok()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(everyMs);
  }
}

/** As `until`, for a value: resolves with the first one `get` gives that is not undefined (a failed `get` is a no). */
export async function eventually<T>(
  what: string,
  get: () => Promise<T | undefined>,
  ms = 10_000,
  everyMs = 100,
): Promise<T> {
  let value: T | undefined;
  await until(what, async () => (value = await get().catch(() => undefined)) !== undefined, ms, everyMs);
  return value as T;
}
