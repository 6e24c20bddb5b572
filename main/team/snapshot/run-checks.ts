// The checks of a downloaded snapshot, all at once, each part on a thread of its own (check-worker.ts):
// the chain in CHAIN_PARTS parts cut at a mark (chain.ts), the rows against what the replay makes of the
// events (verify.ts), and each table's indexes in the file against its rows. They are awaited in the
// order that says a forgery as the chain check finds it, whatever the rows' check found; a part that
// fails or is stopped while another is awaited is never an unhandled rejection.
import type { SignatureKeys } from '../../service/verify-callback.js';
import type { ChainHead } from '../chain.js';
import { poolTls } from '../pool.js';
import { verifyInWorker, type ChainResult, type IndexesResult, type RowsResult } from './check-worker.js';
import type { CopyReindex } from './copy-run.js';
import { SnapshotRejectedError } from './rejected.js';
import type { SnapshotStartOptions } from './start-options.js';
import type { SnapshotInfo } from './store.js';
import type { VerifyJob } from './verify-worker.js';

/** The chain is checked in this many parts at once (chain.ts): the row check is the longest of them. */
const CHAIN_PARTS = 2;

/** The service public key as PEM text, which a worker can be given (a loaded key object cannot). */
function pemOf(keys: SignatureKeys): string | null {
  const k = keys.servicePublicKey;
  if (!k) return null;
  if (typeof k === 'string') return k;
  if ('pem' in k) return k.pem;
  return k.export({ type: 'spki', format: 'pem' }).toString();
}

export interface Checked {
  head: ChainHead;
  marks: ChainHead[];
  verified: RowsResult;
  /** The tables whose indexes in the file did not match its rows. */
  reindex: CopyReindex;
  /** Signed events' verdicts were taken as stored: the desk re-checks them after the copy is shown. */
  deferred: boolean;
}

/**
 * Checks the snapshot `file` of `info`: resolves with what the copy commits with, null when stopped;
 * rejects with SnapshotRejectedError (or the team's errors) with the first refusal.
 */
export async function runChecks(
  o: Pick<SnapshotStartOptions, 'pool' | 'chunk' | 'onProgress' | 'stopped' | 'onPhase' | 'keys' | 'deferSignatures'>,
  info: SnapshotInfo,
  file: string,
  databaseUrl: string,
): Promise<Checked | null> {
  const keys = o.keys?.();
  const defer = keys !== undefined && o.deferSignatures !== false;
  const job: Omit<VerifyJob, 'part'> = {
    databaseUrl,
    tls: poolTls(o.pool),
    file,
    uptoSeq: info.uptoSeq,
    events: info.events,
    ...(o.chunk ? { chunk: o.chunk } : {}),
    ...(keys ? { keys: { signingKey: keys.signingKey ?? null, servicePublicKey: pemOf(keys) } } : {}),
    ...(defer ? { deferSignatures: true } : {}),
  };
  // The chain in two parts, cut at a mark, each on a thread of its own (chain.ts), beside the rows'.
  const parts = CHAIN_PARTS;
  const chains = Array.from({ length: parts }, (_, k) =>
    verifyInWorker({ ...job, part: 'chain', chainPart: k, chainParts: parts }, () => {}, o.stopped),
  );
  const rows = verifyInWorker(
    { ...job, part: 'rows' },
    (seq) => o.onProgress?.({ copiedSeq: seq, totalSeq: info.uptoSeq }),
    o.stopped,
  );
  // Each table's indexes in the file against its rows, beside the copy that takes them as they are. Six
  // threads at once on two cores left the rows' check, the longest, alone at the end with a core idle;
  // both index checks after a part of the chain left the proof of collection_events, longer than a part
  // of the chain and the collections' proof together, alone at the end instead (a year: the last 5 s at
  // one core, docs/benchmarks.md). So that proof starts at once, beside the rows' check it lasts about as
  // long as, and the collections' proof in the thread the first part of the chain leaves.
  const indexes = [
    verifyInWorker({ ...job, part: 'indexes', table: 'collection_events' }, () => {}, o.stopped),
    afterPart(chains[0]!, () => verifyInWorker({ ...job, part: 'indexes', table: 'collections' }, () => {}, o.stopped)),
  ];
  // Awaited below, one after the other: a part that fails (or is stopped) while an earlier one is still
  // awaited, or after another part's failure ended the start, must not be an unhandled rejection.
  for (const w of [...chains, ...indexes]) w.promise.catch(() => undefined);
  const stopAll = async () => {
    await Promise.all([rows, ...chains, ...indexes].map((w) => w.stop()));
  };
  // Stopped part way (the row check says so as it goes): the chain's checks are ended too.
  rows.promise.then((r) => r === null && void stopAll()).catch(() => undefined);
  let chained: ChainResult | null = { head: null, marks: [] };
  try {
    for (const c of chains) {
      const r = (await c.promise) as ChainResult | null;
      if (!r) chained = null;
      else if (chained) chained = { head: r.head ?? chained.head, marks: [...chained.marks, ...r.marks] };
    }
  } catch (e) {
    if ((await rows.promise.catch(() => undefined)) === null) return null;
    // A file that is not the record's is said as the chain check finds it, whatever the rows' check found.
    await stopAll();
    throw e;
  }
  const verified = (await rows.promise) as RowsResult | null;
  if (!chained || !verified) return null;
  if (!chained.head) throw new SnapshotRejectedError('its chain was not checked to its end');
  o.onPhase?.('verify');
  if (verified.events !== info.events || verified.collections !== info.collections)
    throw new SnapshotRejectedError(
      `it holds ${verified.events} events and ${verified.collections} collections, its publisher said ${info.events} and ${info.collections}`,
    );
  const deferred = defer && verified.signed > 0;
  const reindex: CopyReindex = [];
  for (const w of indexes) {
    const r = (await w.promise) as IndexesResult | null;
    if (!r) return null;
    if (!r.match) reindex.push(r.table);
  }
  return { head: chained.head, marks: chained.marks, verified, reindex, deferred };
}

type Check = ReturnType<typeof verifyInWorker>;

/**
 * A check started once `before` has resolved with a result (not when it failed or was stopped: its own
 * result is then null, never read as a pass); stop() ends it, or keeps it from starting.
 */
function afterPart(before: Check, start: () => Check): Check {
  let started: Check | undefined;
  let stopped = false;
  const promise = before.promise.then((r) => {
    if (r === null || stopped) return null;
    started = start();
    return started.promise;
  });
  return {
    promise,
    async stop() {
      stopped = true;
      await started?.stop();
    },
  };
}
