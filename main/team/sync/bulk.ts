// The bulk start: how a desktop with an EMPTY local record catches up the team's history.
//
// Why this is still "one path": the incremental path (apply.ts: each pulled batch appended as a set,
// reconciled once per batch) is a fold of the same rules over the events in seq order; a new desktop has nothing to
// fold into, so it runs the fold once over the whole history, the way the full recompute
// (reconcileAll) classifies every collection at once instead of one at a time. The collection rows come
// from insertIntentCollection (the intent mapping, reused), the projection from the ledger's own rules
// (collections/event-rules.ts projectEvent) applied in memory, each collection's row written once per chunk,
// and reconciliation from ONE reconcileAll at the end. test/team/sync-bulk.test.ts proves the result
// equal, row for row, to the incremental path's over a generated history with every kind of event.
//
// When: the events stream has never applied a batch (team_sync seq 0) and the desktop has no
// collections nor collection_events rows, or a bulk copy was interrupted (seq 0 and the secondary
// indexes or the insert triggers the copy drops are missing), and the team has no snapshot this desk
// accepts (team/snapshot/: tried first on an empty desk). A desktop far behind but not empty keeps the
// incremental path.
//
// Crash safety: each chunk (up to 50,000 events) commits whole, in seq order, WITHOUT the seq, so an
// interrupted copy starts over from seq 0 at the next start (the rule above): the events it already
// stored are found by their dedupe keys and skipped, exactly as the ledger skips them, and so are
// this desktop's own writes made during the copy. (Resuming after the last stored event is not safe:
// that event may be this desktop's own charge, recorded in PostgreSQL far beyond the copied seq.)
// The indexes and triggers come back and the seq is recorded in ONE transaction; then reconcileAll. A crash
// before reconcileAll finishes leaves collections without reconciliation rows above the highest
// reconciled id, which needsFullReconcile() (store/sqlite/team/bulk-copy.ts) finds at the next start.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import {
  bulkIndexes,
  bulkTriggers,
  dropForBulk,
  makeMissing,
  presentSchema,
} from '../../store/sqlite/team/bulk-schema.js';
import { isEmpty, withBulkCache } from '../../store/sqlite/team/bulk-copy.js';
import { lastSeq, setLastSeq } from '../../store/sqlite/team/sync-state.js';
import { newestSeq, pullPageRaw, type ChainedEvent, type PullResult } from '../events.js';
import type { EventVerifier } from '../evidence.js';
import { checkChain, START, type ChainHead } from '../chain.js';
import type { Ledger } from '../../collections/ledger.js';
import { copyChunk } from './bulk-chunk.js';

/** Whether the next pull is a bulk start (see the rule at the top). */
export function wantsBulkStart(db: Db): boolean {
  if (lastSeq(db, 'events') !== 0) return false;
  if (isEmpty(db)) return true;
  const present = presentSchema(db);
  return [...bulkIndexes().keys(), ...bulkTriggers().keys()].some((n) => !present.has(n));
}

export interface BulkProgress {
  /** Events copied so far (by seq) and the team's newest seq when the copy started. */
  copiedSeq: number;
  totalSeq: number;
}

export interface BulkOptions {
  pool: pg.Pool;
  db: Db;
  now: () => number;
  /** Events per PostgreSQL page and per SQLite transaction (default and most 50,000). */
  chunk?: number;
  onProgress?: (p: BulkProgress) => void;
  /** Checked between chunks: a closing sync stops there (each chunk committed whole). */
  stopped?: () => boolean;
  /** Told as each phase ends (the bench measures them apart); `copy` says how long it waited for pages. */
  onPhase?: (phase: 'copy' | 'indexes' | 'reconcile', detail?: { waitMs: number }) => void;
  /** Copy only the events up to this seq (a snapshot's, team/snapshot/publish.ts); default all. */
  uptoSeq?: number;
  /**
   * Reconciles the copy once it is made; null: leave the reconciliation to whoever uses the copy (a snapshot
   * is reconciled by the desk that takes it).
   */
  ledger: Pick<Ledger, 'reconcileHistory'> | null;
  /** This desk's own check of each signed event (team/evidence.ts), as applyEvents takes it. */
  verify?: EventVerifier;
  /**
   * Told each page once it is committed: its events (checked against the chain) and how many the copy
   * stored before it (a snapshot's publisher keeps what the rows leave out of each, team/snapshot/publish.ts).
   */
  onCopied?: (events: readonly ChainedEvent[], storedBefore: number, stored: number) => void;
}

export interface BulkStarted {
  applied: number;
  lastSeq: number;
  /** The events' hash chain as the copy checked it, page by page, up to lastSeq (team/chain.ts). */
  head: ChainHead;
  /** The marks the check passed (team/chain.ts MARK_EVERY), for the desk to keep with the head. */
  marks: ChainHead[];
}

/**
 * Copies the whole team history into this (empty, or bulk-interrupted) desktop, then reconciles once
 * and records the seq reached. Returns how many events it stored, or null when stopped part way.
 */
export async function bulkStart(o: BulkOptions): Promise<BulkStarted | null> {
  const { pool, db } = o;
  const chunk = Math.min(o.chunk ?? 50_000, 50_000);
  const totalSeq = await newestSeq(pool, 'count the team history', o.uptoSeq ?? Number.MAX_SAFE_INTEGER);
  const wanted = bulkIndexes();
  const triggers = bulkTriggers();
  // Building an index once after the load is much cheaper than keeping it up to date row by row.
  if (isEmpty(db)) dropForBulk(db, wanted.keys(), triggers.keys());
  for (const [name, sql] of triggers) wanted.set(name, sql);
  return await withBulkCache(db, () => copyAll(o, totalSeq, wanted, chunk));
}

async function copyAll(
  o: BulkOptions,
  totalSeq: number,
  wanted: Map<string, string>,
  chunk: number,
): Promise<BulkStarted | null> {
  const { pool, db } = o;
  let after = 0;
  // Each page must continue the chain before it is copied: a record that does not match its chain
  // stops the copy there (ChainBrokenError), so nothing past the break is taken as fact.
  let head = START;
  const marks: ChainHead[] = [];
  const ids = new Map<string, number>();
  let applied = 0;
  const fetch = (from: number): Promise<PullResult> => {
    const p = pullPageRaw(pool, from, chunk, o.uptoSeq);
    p.catch(() => undefined); // awaited below; a prefetch abandoned by a failed chunk must not go unhandled
    return p;
  };
  let next = fetch(after);
  let waitMs = 0;
  for (;;) {
    const t = performance.now();
    const page = await next;
    waitMs += performance.now() - t;
    if (page.more) next = fetch(page.lastSeq);
    if (page.events.length) {
      head = checkChain(head, page.events, (m) => marks.push(m));
      const stored = copyChunk(db, ids, page.events, o.verify);
      o.onCopied?.(page.events, applied, stored);
      applied += stored;
      after = page.lastSeq;
      o.onProgress?.({ copiedSeq: after, totalSeq: Math.max(totalSeq, after) });
    }
    if (!page.more) break;
    if (o.stopped?.()) return null;
  }
  o.onPhase?.('copy', { waitMs });
  writeTransaction(db, () => {
    makeMissing(db, wanted);
    setLastSeq(db, 'events', after, o.now());
  });
  o.onPhase?.('indexes');
  if (o.ledger) {
    await o.ledger.reconcileHistory(db, { now: o.now() });
    o.onPhase?.('reconcile');
  }
  return { applied, lastSeq: after, head, marks };
}
