// The background re-check of the signatures a snapshot start took unchecked (signature-check.ts), as the
// sync runs it: one run at a time, started by the pull whenever one is owed (after a restart or a failure,
// it resumes at the next pull), its progress in the sync's status.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import type { Ledger } from '../../collections/ledger.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import { runSignatureCheck, signatureCheckProgress } from './signature-check.js';
import type { SyncStatus } from './status.js';

export type SignatureRun = 'done' | 'stopped' | 'none';

export interface SignatureWatch {
  /** Runs the re-check, or returns the one running ('none' without keys or nothing owed). */
  check(): Promise<SignatureRun>;
  /** Starts it in the background when one is owed and none runs. */
  resumeIfOwed(): void;
  /** Settles once the running check (if any) has stopped. */
  stopped(): Promise<void>;
}

export function createSignatureWatch(o: {
  pool: pg.Pool;
  db: Db;
  ledger: Ledger;
  now: () => number;
  keys: (() => SignatureKeys) | undefined;
  status: SyncStatus;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  isStopped: () => boolean;
}): SignatureWatch {
  let run: Promise<SignatureRun> | null = null;
  function check(): Promise<SignatureRun> {
    const keys = o.keys;
    if (o.isStopped() || !keys) return Promise.resolve('none');
    run ??= runSignatureCheck({
      pool: o.pool,
      db: o.db,
      ledger: o.ledger,
      now: o.now,
      keys,
      onProgress: (p) => o.status.set({ signatures: p }),
      stopped: o.isStopped,
    }).then(
      (r) => {
        if (r === 'done') o.logger.info({}, 'team sync: every signature taken from the snapshot is checked');
        run = null;
        return r;
      },
      (e: unknown) => {
        run = null;
        o.logger.warn(
          { err: e },
          'team sync: the re-check of the snapshot signatures stopped; it resumes at the next pull',
        );
        throw e;
      },
    );
    return run;
  }
  return {
    check,
    resumeIfOwed() {
      if (!run && o.keys && signatureCheckProgress(o.db)) void check().catch(() => undefined);
    },
    stopped: async () => {
      await run?.catch(() => undefined);
    },
  };
}
