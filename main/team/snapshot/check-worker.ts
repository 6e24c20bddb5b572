// One part of a snapshot's check (verify-worker.ts: a part of the chain, the rows, a table's indexes)
// on a worker thread of its own, seen from the desk: its result, null when stopped part way, or the error
// it posted as the class the sync tells apart.
import { launchWorker } from '../../platform/launch-worker.js';
import { TeamPermissionError, TeamSignInError, TeamUnavailableError } from '../errors.js';
import type { ChainHead } from '../chain.js';
import { SnapshotRejectedError } from './rejected.js';
import type { VerifyJob, VerifyMessage } from './verify-worker.js';

export interface RowsResult {
  events: number;
  collections: number;
  signed: number;
}
export interface IndexesResult {
  table: 'collections' | 'collection_events';
  match: boolean;
}
export interface ChainResult {
  head: ChainHead | null;
  marks: ChainHead[];
}

/**
 * A part of the check (verify-worker.ts) on a worker thread: resolves with its result, null when stopped
 * part way; stop() ends it.
 */
export function verifyInWorker(
  job: VerifyJob,
  onProgress: (seq: number) => void,
  stopped?: () => boolean,
): { promise: Promise<RowsResult | ChainResult | IndexesResult | null>; stop(): Promise<void> } {
  // A large young generation for the row check: it keeps a page of rows alive while it walks it, and
  // with the default one (16 MB semi-spaces) a third of its time went to copying them between
  // semi-spaces and promoting them (measured when it read the record from PostgreSQL: 43 s by default,
  // 31 s with 256 MB semi-spaces at 1,000,000 collections). The chain check keeps nothing.
  const w = launchWorker(
    import.meta.url,
    'verify-worker',
    job,
    job.part === 'rows' ? { maxYoungGenerationSizeMb: 768 } : undefined,
  );
  const promise = new Promise<RowsResult | ChainResult | IndexesResult | null>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      void w.terminate();
    };
    w.on('message', (m: VerifyMessage) => {
      if (m.type === 'progress') {
        onProgress(m.seq);
        if (stopped?.()) settle(() => resolve(null));
      } else if (m.type === 'stopped') settle(() => resolve(null));
      else if (m.type === 'rows')
        settle(() => resolve({ events: m.events, collections: m.collections, signed: m.signed }));
      else if (m.type === 'indexes') settle(() => resolve({ table: m.table, match: m.match }));
      else if (m.type === 'chain')
        settle(() =>
          resolve({
            head: m.head ? { seq: m.head[0], hash: Buffer.from(m.head[1], 'hex') } : null,
            marks: m.marks.map(([seq, hash]) => ({ seq, hash: Buffer.from(hash, 'hex') })),
          }),
        );
      else settle(() => reject(workerError(m)));
    });
    w.on('error', (e) => settle(() => reject(e)));
    w.on('exit', (code) => settle(() => reject(new Error(`the snapshot check stopped (exit code ${code})`))));
  });
  return {
    promise,
    async stop() {
      await w.terminate();
    },
  };
}

/** An error the check posted, as the class the sync tells apart (offline, refused, rejected). */
function workerError(m: { name: string; message: string; code?: string }): Error {
  if (m.name === 'TeamUnavailableError') return new TeamUnavailableError(m.message, m.code);
  if (m.name === 'TeamSignInError') return new TeamSignInError(m.message, m.code);
  if (m.name === 'TeamPermissionError') return new TeamPermissionError(m.message, m.code);
  // Anything else is about this snapshot (a file SQLite cannot read, a value out of range): refused, so
  // the desk replays rather than trying the same snapshot at every pull.
  return new SnapshotRejectedError(m.message.replace(/^the team snapshot was not used: /, ''));
}
