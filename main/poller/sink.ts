// Where the poller records each run: the seam between polling (loops, back-off, Retry-After, status)
// and storage. The desktop's sink is its SQLite cache (poll log + snapshots/options, one transaction per
// run); `serve` gives one that writes the team's PostgreSQL (main/serve/poll-to-team.ts).
import type { WriteDb } from '../store/sqlite/connection.js';
import type { PaymentOption, WalletBalance } from '../service/types.js';
import { latestBalances, recordBalanceRun, type RunResult } from '../store/sqlite/balances.js';
import { recordProvidersRun } from '../store/sqlite/payment-options.js';
import { lastRun, lastSuccessfulRun, type PollError, type PollKind, type PollRun } from '../store/sqlite/poll-runs.js';

export interface PollRunInput<T> {
  startedAt: number;
  finishedAt: number;
  result: RunResult<readonly T[]>;
}

/** What a run changed (snapshots written or options stored), or why its answer was not usable. */
export interface RecordedRun {
  changed: number;
  error: PollError | null;
}

export interface PollSink {
  /** The last run of a kind and the last successful one, read once at start (null when none is known). */
  lastRun(kind: PollKind): PollRun | null;
  lastSuccessfulRun(kind: PollKind): PollRun | null;
  /** Records a run; an error result (or an unusable answer) changes no data. Throws only when it cannot record. */
  recordBalances(run: PollRunInput<WalletBalance>): RecordedRun | Promise<RecordedRun>;
  recordProviders(run: PollRunInput<PaymentOption>): RecordedRun | Promise<RecordedRun>;
  /**
   * The currencies of the balances recorded last: the payment options are asked per currency the merchant
   * holds. Without it (or with none recorded yet) the options run asks the balance inquiry itself.
   */
  heldCurrencies?(): string[];
}

export function sqlitePollSink(db: WriteDb): PollSink {
  return {
    lastRun: (kind) => lastRun(db, kind),
    lastSuccessfulRun: (kind) => lastSuccessfulRun(db, kind),
    recordBalances: (run) => recordBalanceRun(db, run),
    recordProviders: (run) => recordProvidersRun(db, run),
    heldCurrencies: () => [
      ...new Set(latestBalances(db, { now: 0, staleAfterMs: Infinity }).rows.map((r) => r.currency)),
    ],
  };
}
