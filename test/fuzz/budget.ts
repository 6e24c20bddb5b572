// The fuzz suite's budget and its report, the same for every boundary's file (test/fuzz/<boundary>.test.ts).
//
// - FUZZ_SEED: the seed (default 39, so `npm test` is repeatable; a failure prints the seed and path to replay).
// - FUZZ_RUNS: inputs per property (default: each property's own small number).
// - FUZZ_SECONDS: the time for a whole boundary's file, shared out over its properties; with it, the runs go
//   on until the time is up (FUZZ_RUNS, when given too, caps them). `npm run fuzz -- --minutes N` sets it.
//   Without it a boundary stops at its default runs or after DEFAULT_SECONDS, whichever comes first, so a
//   busy machine does fewer inputs instead of making `npm test` slower.
// - FUZZ_REPORT: a file each property appends one JSON line to ({boundary, property, inputs, failed}): the
//   runner (scripts/fuzz.mjs) counts the inputs per boundary from it.
import fs from 'node:fs';
import fc from 'fast-check';

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 39);

function positive(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!(n > 0)) throw new Error(`${name} must be a number above 0, got "${v}"`);
  return n;
}

const RUNS = positive('FUZZ_RUNS');
const SECONDS = positive('FUZZ_SECONDS');

/** A boundary's budget: `properties` share its time; each has its own default number of runs. */
export interface Budget {
  /** How long a test of one property may take (vitest's timeout), with room for its setup. */
  timeoutMs: number;
  /** Runs one property under the budget and reports it; throws fast-check's report on a failure. */
  check<T>(property: string, prop: fc.IAsyncProperty<T>, defaultRuns: number): Promise<void>;
}

/** A boundary's time in `npm test` (no FUZZ_SECONDS). */
const DEFAULT_SECONDS = 8;

/**
 * Runs are made in chunks, each a whole fast-check run with a seed of its own (FUZZ_SEED, then + 1, ...),
 * until the runs or the time are used up: a chunk always finishes, so no input is still at work when the
 * next property or the checks after it start (fast-check's time-limit plugin leaves the last one running).
 */
const CHUNK = 20;

export function fuzzBudget(boundary: string, properties: number): Budget {
  const share = ((SECONDS ?? DEFAULT_SECONDS) * 1000) / properties;
  return {
    timeoutMs: share + 60_000,
    async check(property, prop, defaultRuns) {
      const cap = RUNS ?? (SECONDS === undefined ? defaultRuns : Infinity);
      const deadline = Date.now() + share;
      let inputs = 0;
      let failure: string | null = null;
      for (let chunk = 0; inputs < cap && (chunk === 0 || Date.now() < deadline); chunk++) {
        const details = await fc.check(prop, {
          seed: FUZZ_SEED + chunk,
          numRuns: Math.min(CHUNK, cap - inputs),
          endOnFailure: true,
        });
        inputs += details.numRuns;
        if (details.failed) {
          failure = fc.defaultReportMessage(details) ?? `${boundary}: ${property} failed`;
          break;
        }
      }
      const report = process.env.FUZZ_REPORT;
      if (report)
        fs.appendFileSync(
          report,
          JSON.stringify({ boundary, property, inputs, failed: failure !== null, seed: FUZZ_SEED }) + '\n',
        );
      if (failure !== null) throw new Error(failure);
    },
  };
}

/** What a person must never read: an error's own text, its class, a stack frame. */
export const INTERNAL_TEXT =
  /Maximum call stack|RangeError|TypeError|SyntaxError|ReferenceError|SqliteError|ZodError|\[object Object\]|\bat .*\(.*:\d+:\d+\)|\bat (file|node):|undefined is not|Cannot read properties/;

/** Collects unhandled rejections while a boundary is fuzzed (none may happen). */
export function unhandledRejections(): { list: unknown[]; stop(): void } {
  const list: unknown[] = [];
  const on = (reason: unknown) => void list.push(reason);
  process.on('unhandledRejection', on);
  return { list, stop: () => void process.off('unhandledRejection', on) };
}
