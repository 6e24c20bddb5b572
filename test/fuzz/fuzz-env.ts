// How long a generated-input test runs: small by default (npm test), longer when a release run asks.
// FUZZ_RUNS: inputs per property; FUZZ_SECONDS: a time budget per property instead (the runs then go on
// until it is spent); FUZZ_SEED: another seed, or replay a failure (fast-check prints its seed). Without
// FUZZ_SEED every run draws the same inputs, so `npm test` passes or fails the same way each time.

export interface FuzzBudget {
  numRuns: number;
  seed: number;
  /** Milliseconds; with FUZZ_SECONDS the property stops when they are spent, even before numRuns. */
  interruptAfterTimeLimit?: number;
  markInterruptAsFailure: false;
}

function envNumber(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${v}"`);
  return n;
}

/** fast-check parameters for one property: `runs` inputs unless the environment says otherwise. */
export function fuzzBudget(runs: number): FuzzBudget {
  const seconds = envNumber('FUZZ_SECONDS');
  const seed = envNumber('FUZZ_SEED') ?? 39;
  return {
    numRuns: envNumber('FUZZ_RUNS') ?? (seconds !== undefined ? Number.MAX_SAFE_INTEGER : runs),
    seed,
    ...(seconds !== undefined ? { interruptAfterTimeLimit: seconds * 1000 } : {}),
    markInterruptAsFailure: false,
  };
}
