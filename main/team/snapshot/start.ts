// A new desk's start from the team's newest snapshot: download it beside the desk's database, check it
// (its events against the hash chain, chain.ts, and every row against what the replay makes of those
// events, verify.ts), copy its two tables into the (still empty) desk in ONE transaction, record its seq,
// and reconcile. The incremental path then takes the events after it.
//
// Why it is faster: the replay (sync/bulk.ts) spends its time inserting 3.6 M events one by one and then
// building the indexes; here SQLite copies the snapshot's tables and indexes record by record in order
// (copy-worker.ts), and the checks only read the file, sequentially: of the record, PostgreSQL sends one
// row, its head at the snapshot's seq. The chain check, the row check and the copy run at once, each on a
// thread of its own, and the copy commits only after both checks passed.
//
// What a desk trusts: nothing more than with the replay. The file's events must hash, one onto the
// other, to the head team.events holds, so they are the record's; every event row and every collection
// row of the snapshot must equal what the replay makes of them (actors as the database recorded them),
// whatever its id, and the reconciliation is computed here. The indexes are not taken on trust: each
// table's indexes in the file are proven against its rows (on threads of their own, while the copy
// transfers them as they are), and the copy rebuilds them from the rows before it commits when they do
// not match. A forged index is not harmless: a unique index on merchant_reference
// decides which collection a later callback lands on.
//
// Any refusal (no snapshot of this schema version, damaged, not the record, the desk no longer empty)
// leaves the desk as it was, and the caller replays instead.
import fs from 'node:fs';
import type pg from 'pg';
import { checkpointWal, type Db } from '../../store/sqlite/connection.js';
import { launchWorker } from '../../platform/launch-worker.js';
import { TeamPermissionError, TeamSignInError, TeamUnavailableError } from '../errors.js';
import { poolTls } from '../pool.js';
import type { CopyCommand, CopyJob, CopyMessage } from './copy-worker.js';
import { SnapshotRejectedError } from './rejected.js';
import { downloadSnapshot, newestSnapshot, type SnapshotInfo } from './store.js';
import { snapshotSchemaVersion } from './file-schema.js';
import type { VerifyJob, VerifyMessage } from './verify-worker.js';
import type { SignatureKeys } from '../../service/verify-callback.js';
import type { ChainHead } from '../chain.js';
import { reconcileHistory } from '../../collections/ledger.js';

export interface SnapshotStartOptions {
  pool: pg.Pool;
  db: Db;
  now: () => number;
  chunk?: number;
  /** How far the verification is, by seq, against the snapshot's seq. */
  onProgress?: (p: { copiedSeq: number; totalSeq: number }) => void;
  stopped?: () => boolean;
  /** Told as each phase ends (the bench measures them apart). */
  onPhase?: (phase: 'download' | 'verify' | 'copy' | 'checkpoint' | 'reconcile') => void;
  /** The keys this desk checks signed events with (verify.ts); read once, when the check starts. */
  keys?: () => SignatureKeys;
  /**
   * false: re-check every signed event's signature before the copy is shown. Otherwise (with keys) the
   * snapshot's verdicts are taken at first and re-checked after (sync/signature-check.ts), which also
   * reconciles once done: the copy commits with the record of that check and is not reconciled here.
   */
  deferSignatures?: boolean;
}

export type SnapshotStart =
  | {
      started: true;
      applied: number;
      lastSeq: number;
      snapshot: SnapshotInfo;
      head: ChainHead;
      marks: ChainHead[];
      /** Signed events whose signatures the desk re-checks now that the copy is shown (0: none, reconciled). */
      signaturesToCheck: number;
    }
  | { started: false; reason: string; snapshot: SnapshotInfo | null };

/** The service public key as PEM text, which a worker can be given (a loaded key object cannot). */
function pemOf(keys: SignatureKeys): string | null {
  const k = keys.servicePublicKey;
  if (!k) return null;
  if (typeof k === 'string') return k;
  if ('pem' in k) return k.pem;
  return k.export({ type: 'spki', format: 'pem' }).toString();
}

/** Where a desk downloads a snapshot: beside its database, owner-only like it. */
const downloadFile = (db: Db): string => `${db.name}.snapshot`;

/** A download left by a desk stopped part way (a crash, a power cut): never read, only removed. */
export function removeLeftoverDownload(db: Db): void {
  fs.rmSync(downloadFile(db), { force: true });
}

export async function snapshotStart(o: SnapshotStartOptions): Promise<SnapshotStart | null> {
  const { db } = o;
  const info = await newestSnapshot(o.pool, snapshotSchemaVersion());
  if (!info) return { started: false, reason: 'the team has no snapshot of this version yet', snapshot: null };
  const databaseUrl = o.pool.options.connectionString;
  if (!databaseUrl) return { started: false, reason: 'the team pool has no connection URL', snapshot: info };
  const file = downloadFile(db);
  removeLeftoverDownload(db);
  let copy: CopyRun | undefined;
  try {
    o.onProgress?.({ copiedSeq: 0, totalSeq: info.uptoSeq });
    await downloadSnapshot(o.pool, info, file);
    o.onPhase?.('download');
    // The checks and the copy run at once, each on a thread of its own: the copy commits only once both
    // checks have passed.
    copy = startCopy({ dbFile: db.name, snapshotFile: file, uptoSeq: info.uptoSeq, now: o.now() });
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
    // Each table's indexes in the file against its rows, beside the copy that takes them as they are.
    const indexes = (['collections', 'collection_events'] as const).map((table) =>
      verifyInWorker({ ...job, part: 'indexes', table }, () => {}, o.stopped),
    );
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
    const reindex: ('collections' | 'collection_events')[] = [];
    for (const w of indexes) {
      const r = (await w.promise) as IndexesResult | null;
      if (!r) return null;
      if (!r.match) reindex.push(r.table);
    }
    await copy.commit(deferred ? { signed: verified.signed, events: verified.events } : undefined, reindex);
    copy = undefined;
    o.onPhase?.('copy');
    // The copy went through the WAL; fold it into the database now rather than at some later commit.
    // The copy went through the WAL: folded into the database now rather than at some later commit.
    checkpointWal(db);
    o.onPhase?.('checkpoint');
    // Deferred, nothing is reconciled until the signatures are checked: no collection counts as matched
    // on a signature this desk has not checked (sync/signature-check.ts reconciles when it is done).
    if (!deferred) {
      await reconcileHistory(db, { now: o.now() });
      o.onPhase?.('reconcile');
    }
    return {
      signaturesToCheck: deferred ? verified.signed : 0,
      started: true,
      applied: verified.events,
      lastSeq: info.uptoSeq,
      snapshot: info,
      head: chained.head,
      marks: chained.marks,
    };
  } catch (e) {
    if (e instanceof SnapshotRejectedError) return { started: false, reason: e.message, snapshot: info };
    throw e;
  } finally {
    await copy?.rollback();
    fs.rmSync(file, { force: true });
  }
}

interface CopyRun {
  /**
   * Rebuilds the indexes of `reindex` (whose indexes in the file did not match its rows), then commits;
   * resolves once committed; rejects with SnapshotRejectedError when the copy could not be made.
   */
  commit(signatureCheck?: { signed: number; events: number }, reindex?: CopyReindex): Promise<void>;
  rollback(): Promise<void>;
}

/** The copy-worker, started at once; it holds its transaction open until told what to do with it. */
function startCopy(job: CopyJob): CopyRun {
  const w = launchWorker(import.meta.url, 'copy-worker', job);
  const messages: CopyMessage[] = [];
  let wake: (() => void) | undefined;
  let exited = false;
  w.on('message', (m: CopyMessage) => {
    messages.push(m);
    wake?.();
  });
  w.on('error', (e) => {
    messages.push({ type: 'error', message: e.message });
    wake?.();
  });
  w.on('exit', () => {
    exited = true;
    wake?.();
  });
  const nextMessage = async (): Promise<CopyMessage> => {
    while (!messages.length) {
      if (exited) return { type: 'error', message: 'the snapshot copy stopped' };
      await new Promise<void>((r) => (wake = r));
    }
    return messages.shift()!;
  };
  let ended = false;
  const end = async (command: CopyCommand): Promise<CopyMessage> => {
    ended = true;
    if (exited) return { type: 'error', message: 'the snapshot copy stopped' };
    w.postMessage(command);
    let m: CopyMessage;
    do m = await nextMessage();
    while (m.type === 'copied' || m.type === 'refused');
    return m;
  };
  return {
    async commit(signatureCheck, reindex) {
      const first = await nextMessage();
      if (first.type === 'refused') {
        await end({ what: 'rollback' });
        throw new SnapshotRejectedError(first.reason);
      }
      if (first.type !== 'copied') {
        await end({ what: 'rollback' });
        throw new SnapshotRejectedError(
          `this desk could not copy it: ${'message' in first ? first.message : first.type}`,
        );
      }
      const m = await end({
        what: 'commit',
        ...(signatureCheck ? { signatureCheck } : {}),
        ...(reindex?.length ? { reindex } : {}),
      });
      if (m.type !== 'committed')
        throw new SnapshotRejectedError(`this desk could not copy it: ${'message' in m ? m.message : m.type}`);
    },
    async rollback() {
      if (!ended) await end({ what: 'rollback' });
    },
  };
}

interface RowsResult {
  events: number;
  collections: number;
  signed: number;
}
interface IndexesResult {
  table: 'collections' | 'collection_events';
  match: boolean;
}
type CopyReindex = ('collections' | 'collection_events')[];
interface ChainResult {
  head: ChainHead | null;
  marks: ChainHead[];
}

/** The chain is checked in this many parts at once (chain.ts): the row check is the longest of them. */
const CHAIN_PARTS = 2;

/**
 * A part of the check (verify-worker.ts) on a worker thread: resolves with its result, null when stopped
 * part way; stop() ends it.
 */
function verifyInWorker(
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
