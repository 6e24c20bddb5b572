// The desk's watch over the hash chain while it syncs: every pulled batch is checked before it is applied
// (chain-check.ts checkPulled, called by the pull loop), and what the desk holds is re-checked in the
// background: first after the first pull of a session (sign-in), then every period, one re-check at a time.
// Its state goes into the sync's status (status.ts); while a pull applies batches, a verified head that
// moves with every batch is told with the pull's end (or a drain's progress), not after each batch; an
// alarm at once.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { createChainCheck, type ChainCheck, type ChainState } from './chain-check.js';
import type { SyncStatus } from './status.js';

export interface ChainWatch extends ChainCheck {
  /** Re-checks the chain of everything this desk holds now; the re-check running, if one is. */
  recheckChain(): Promise<ChainState>;
  /** A pull succeeded: the first one starts the periodic re-checks. */
  pulled(): void;
  /** Whether a pull is applying batches (the status it tells at its end carries the verified head). */
  draining(on: boolean): void;
  close(): void;
}

export interface ChainWatchOptions {
  pool: pg.Pool;
  db: Db;
  now: () => number;
  status: SyncStatus;
  logger: { warn(obj: object, msg?: string): void };
  /** Between background re-checks (default 5 minutes; 0: only at sign-in). */
  everyMs?: number | undefined;
  stopped: () => boolean;
  /** Whether the record went back in time (rollback.ts), asked before a tamper alarm is raised. */
  explain: () => Promise<boolean>;
}

export function createChainWatch(o: ChainWatchOptions): ChainWatch {
  let draining = false;
  const check = createChainCheck({
    pool: o.pool,
    db: o.db,
    now: o.now,
    onChange: (c) => (draining && !c.broken ? o.status.note({ chain: c }) : o.status.set({ chain: c })),
    stopped: o.stopped,
    explain: o.explain,
  });
  o.status.note({ chain: check.state() });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<ChainState> | null = null;
  let started = false;

  function recheckChain(): Promise<ChainState> {
    if (o.stopped()) return Promise.resolve(check.state());
    if (running) return running;
    const run = check.recheck();
    running = run;
    run
      .then(
        (c) => {
          if (c.broken) o.logger.warn({ broken: c.broken }, 'team sync: the team record does not match its hash chain');
        },
        (e: unknown) => o.logger.warn({ err: e }, 'team sync: the hash chain re-check could not run'),
      )
      .finally(() => {
        running = null;
        const every = o.everyMs ?? 5 * 60_000;
        if (o.stopped() || every <= 0) return;
        clearTimeout(timer);
        timer = setTimeout(() => void recheckChain().catch(() => undefined), every);
        timer.unref?.();
      });
    return run;
  }

  return {
    ...check,
    recheckChain,
    pulled() {
      if (started) return;
      started = true;
      void recheckChain().catch(() => undefined); // logged there
    },
    draining(on) {
      draining = on;
    },
    close: () => clearTimeout(timer),
  };
}
