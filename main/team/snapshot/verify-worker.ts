// Worker entry for the checks of a snapshot (verify.ts, chain.ts) off the main thread: its own
// connection to the team database and its own read-only one to the downloaded file, so the desk's window
// keeps answering and the copy (copy-worker.ts) runs beside it. Several run at once: the file's events
// against the hash chain (part 'chain', in parts), every row the desk takes against what the replay makes
// of those events (part 'rows'), and each table's indexes in the file against its rows (part 'indexes').
// Progress and the outcome go back as messages. Each part imports only what it runs: the rows' and the
// chain's modules (the team's rules, the PostgreSQL client) cost a thread about 130 ms of CPU to load,
// which an index check, reading nothing but the file, has no use for.
import { parentPort, workerData } from 'node:worker_threads';
import type pg from 'pg';
import { openConnection } from '../../store/sqlite/connection.js';
import type { TeamTls } from '../tls.js';
import { SnapshotRejectedError } from './rejected.js';

export interface VerifyJob {
  /** rows: verify.ts; chain: chain.ts; indexes: the file's indexes of `table` against its rows. */
  part: 'rows' | 'chain' | 'indexes';
  table?: 'collections' | 'collection_events';
  /** part 'chain': which of how many parts of the chain (chain.ts checkSnapshotChain). */
  chainPart?: number;
  chainParts?: number;
  /** With the password: it stays in this process's memory, like the pool's. */
  databaseUrl: string;
  /** The desk's TLS settings, so this connection checks the server as the pool's do. */
  tls: TeamTls;
  file: string;
  uptoSeq: number;
  /** The events the publisher said the file holds (the chain check holds it to them). */
  events: number;
  chunk?: number;
  /** The desk's keys for its own check of signed events (PEM text and the signing key, or null). */
  keys?: { signingKey: string | null; servicePublicKey: string | null };
  /** verify.ts deferSignatures: the desk re-checks the signed events after it shows its copy. */
  deferSignatures?: boolean;
}

export type VerifyMessage =
  | { type: 'progress'; seq: number }
  | {
      type: 'rows';
      events: number;
      collections: number;
      /** Signed events whose verdict was taken as stored (deferSignatures), for the re-check after. */
      signed: number;
    }
  | {
      type: 'chain';
      /** The record's head, from the last part: [seq, hash in hex]. */
      head: [number, string] | null;
      /** [seq, hash in hex] of each mark the check passed. */
      marks: [number, string][];
    }
  | { type: 'indexes'; table: 'collections' | 'collection_events'; match: boolean }
  | { type: 'stopped' }
  | { type: 'error'; name: string; message: string; code?: string };

const job = workerData as VerifyJob;
const post = (m: VerifyMessage) => parentPort!.postMessage(m);
let pool: pg.Pool | undefined;
const teamPool = async (): Promise<pg.Pool> => {
  const { openTeamPool } = await import('../pool.js');
  pool = openTeamPool(job.databaseUrl, { max: 2, tls: job.tls });
  return pool;
};
// Read through a memory map rather than copying every page of a file this size into the cache.
const snap = openConnection(job.file, 'snapshot');
try {
  if (job.part === 'indexes') {
    const table = job.table!;
    const { indexesMatchRows } = await import('../../store/sqlite/team/snapshot-copy.js');
    const { firstBytesInText } = await import('../../store/sqlite/team/snapshot-file.js');
    // Bytes in a text column pass every check that reads values through SQLite's JSON functions
    // (firstBytesInText says why): refused here, on the thread that proves the table's indexes.
    const bytes = firstBytesInText(snap, table);
    if (bytes)
      throw new SnapshotRejectedError(`${table} row ${bytes[0]}: ${bytes[1]} holds bytes, the record has text`);
    post({ type: 'indexes', table, match: indexesMatchRows(snap, table) });
  } else if (job.part === 'chain') {
    const { checkSnapshotChain } = await import('./chain.js');
    const r = await checkSnapshotChain({
      pool: await teamPool(),
      snap,
      uptoSeq: job.uptoSeq,
      events: job.events,
      part: job.chainPart ?? 0,
      of: job.chainParts ?? 1,
    });
    if (!r) post({ type: 'stopped' });
    else
      post({
        type: 'chain',
        head: r.head ? [r.head.seq, r.head.hash.toString('hex')] : null,
        marks: r.marks.map((m) => [m.seq, m.hash.toString('hex')]),
      });
  } else {
    const { verifySnapshot } = await import('./verify.js');
    const r = await verifySnapshot({
      pool: await teamPool(),
      snap,
      uptoSeq: job.uptoSeq,
      events: job.events,
      ...(job.chunk ? { chunk: job.chunk } : {}),
      ...(job.keys ? { keys: job.keys } : {}),
      ...(job.deferSignatures ? { deferSignatures: true } : {}),
      onProgress: (seq) => post({ type: 'progress', seq }),
    });
    if (!r) post({ type: 'stopped' });
    else post({ type: 'rows', events: r.events, collections: r.collections, signed: r.signed });
  }
} catch (e) {
  const err = e as Error & { code?: string };
  post({ type: 'error', name: err.name, message: err.message, ...(err.code ? { code: err.code } : {}) });
} finally {
  snap.close();
  await pool?.end().catch(() => undefined);
}
