// The bulk start: how a desktop with an EMPTY local record catches up the team's history.
//
// Why this is still "one path": the incremental path (apply.ts: appendEvent per event, reconciliation
// per batch) is a fold of the same rules over the events in seq order; a new desktop has nothing to
// fold into, so it runs the fold once over the whole history, the way the full recompute
// (reconcileAll) classifies every collection at once instead of one at a time. The collection rows come
// from insertIntentCollection (the intent mapping, reused), the projection from appendEvent's own rules
// (collections/events.ts projectEvent) applied in memory, each collection's row written once per chunk,
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
// stored are found by their dedupe keys and skipped, exactly as appendEvent skips them, and so are
// this desktop's own writes made during the copy. (Resuming after the last stored event is not safe:
// that event may be this desktop's own charge, recorded in PostgreSQL far beyond the copied seq.)
// The indexes and triggers come back and the seq is recorded in ONE transaction; then reconcileAll. A crash
// before reconcileAll finishes leaves collections without reconciliation rows above the highest
// reconciled id, which needsFullReconcile() finds at the next start.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { migrations } from '../../store/sqlite/migrations/index.js';
import {
  projectEvent,
  type NewEvent,
  type Projected,
  type Projection as EventProjection,
} from '../../collections/events.js';
import { collectionIdByReference, insertIntentCollection } from '../../collections/intent-row.js';
import { reconcileAll } from '../../reconcile/reconcile.js';
import { newestSeq, pullPageRaw, type PullResult, type TeamEvent } from '../events.js';
import type { EventVerifier } from '../evidence.js';
import { fromTeamEvent, intentFromTeamEvent } from '../record.js';
import { lastSeq, setLastSeq } from './apply.js';
import { checkChain, START, type ChainHead } from '../chain.js';

/** Tables whose secondary indexes the bulk copy drops while they are empty, and builds after. */
const BULK_TABLES = new Set(['collections', 'collection_events']);

/**
 * The non-unique indexes the migrations leave on BULK_TABLES, with the migrations' own SQL: replayed
 * in order, so an index a later migration dropped is not brought back. UNIQUE ones stay (they are
 * constraints the copy relies on).
 */
export function bulkIndexes(): Map<string, string> {
  const out = new Map<string, string>();
  const re =
    /CREATE\s+INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+ON\s+(\w+)[^;]*;|DROP\s+INDEX\s+(?:IF\s+EXISTS\s+)?(\w+)\s*;/gi;
  for (const m of migrations)
    for (const x of m.sql.matchAll(re)) {
      if (x[3]) out.delete(x[3]);
      else if (BULK_TABLES.has(x[2]!)) out.set(x[1]!, x[0]);
    }
  return out;
}

/**
 * Triggers the migrations leave on BULK_TABLES, with their own SQL, replayed in order. `insertOnly`: the
 * BEFORE INSERT ones of collection_events (migration 7). They refuse an INSERT OR REPLACE over a stored
 * event at the price of two EXISTS lookups per insert; the copy's insert replaces nothing and skips a
 * stored dedupe key by ON CONFLICT (as appendEvent does), so on an empty desk the copy drops them and
 * makes them again, from the same SQL, in the transaction that builds the indexes. All of them: a
 * snapshot start (team/snapshot/copy-worker.ts) copies whole tables with SQLite's transfer optimisation,
 * which SQLite uses only for a table without triggers, and makes them again in the same transaction.
 */
export function bulkTriggers(insertOnly = true): Map<string, string> {
  const out = new Map<string, string>();
  const re =
    /CREATE\s+TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+BEFORE\s+(INSERT|UPDATE|DELETE)\s+ON\s+(\w+)\b[\s\S]*?\bEND\s*;|DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?(\w+)\s*;/gi;
  for (const m of migrations)
    for (const x of m.sql.matchAll(re)) {
      if (x[4]) out.delete(x[4]);
      else if (insertOnly ? x[3] === 'collection_events' && x[2]!.toUpperCase() === 'INSERT' : BULK_TABLES.has(x[3]!))
        out.set(x[1]!, x[0]);
    }
  return out;
}

export function presentSchema(db: Db): Set<string> {
  return new Set(
    db.prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')").pluck().all() as string[],
  );
}

export function isEmpty(db: Db): boolean {
  return (
    !db.prepare('SELECT 1 FROM collections LIMIT 1').get() &&
    !db.prepare('SELECT 1 FROM collection_events LIMIT 1').get()
  );
}

/** Whether the next pull is a bulk start (see the rule at the top). */
export function wantsBulkStart(db: Db): boolean {
  if (lastSeq(db, 'events') !== 0) return false;
  if (isEmpty(db)) return true;
  const present = presentSchema(db);
  return [...bulkIndexes().keys(), ...bulkTriggers().keys()].some((n) => !present.has(n));
}

/**
 * True when some collection has no reconciliation row above the highest reconciled id: a full
 * recompute (or a bulk start) stopped before its end. The incremental path never leaves that state.
 */
export function needsFullReconcile(db: Db): boolean {
  return !!db
    .prepare(
      'SELECT 1 FROM collections WHERE id > (SELECT COALESCE(MAX(collection_id), 0) FROM reconciliation) LIMIT 1',
    )
    .get();
}

/** The projection columns appendEvent maintains, and the last event id it writes with them. */
export type Projection = EventProjection & { last_event_id: number | null };

/**
 * An event's columns as the copy inserts them (collection_id to actor): one place for the copy and for a
 * snapshot's check (team/snapshot/verify.ts), which expects exactly what the copy writes.
 */
export function eventValues(collectionId: number | null, ev: Omit<NewEvent, 'collectionId'>, kind: string): unknown[] {
  return [
    collectionId,
    ev.merchantReference,
    ev.internalReference ?? null,
    ev.source,
    kind,
    ev.status ?? null,
    ev.receivedAt,
    ev.signature,
    ev.amountMinor ?? null,
    ev.currency ?? null,
    ev.dedupeKey ?? null,
    ev.payload ?? null,
    ev.note ?? null,
    ev.actor ?? null,
  ];
}

/** A row's projection in the order of the copy's UPDATE (status to final_changes), likewise shared. */
export function projectionValues(p: Projection): unknown[] {
  return [
    p.status,
    p.status_changed_at,
    p.internal_reference,
    p.payment_url,
    p.status_message,
    p.last_event_id,
    p.redirect_status,
    p.redirect_signature,
    p.callback_status,
    p.flags,
    p.final_changes,
  ];
}

function statements(db: Db) {
  return {
    insertEvent: db.prepare(
      `INSERT INTO collection_events (collection_id, merchant_reference, internal_reference, source, kind, status, received_at,
         signature, amount_minor, currency, dedupe_key, payload, note, actor)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (dedupe_key) DO NOTHING`,
    ),
    row: db.prepare(
      `SELECT status, status_changed_at, status_message, redirect_signature, amount_minor, currency, internal_reference,
         payment_url, redirect_status, callback_status, flags, final_changes, last_event_id FROM collections WHERE id = ?`,
    ),
    update: db.prepare(
      `UPDATE collections SET status = ?, status_changed_at = ?, internal_reference = ?, payment_url = ?, status_message = ?,
         last_event_id = ?, redirect_status = ?, redirect_signature = ?, callback_status = ?, flags = ?, final_changes = ?
       WHERE id = ?`,
    ),
  };
}

/**
 * One chunk in one transaction: collections from intents, events, then each touched row's projection
 * once. Returns how many events it stored.
 */
function copyChunk(
  db: Db,
  st: ReturnType<typeof statements>,
  ids: Map<string, number>,
  events: readonly TeamEvent[],
  verify: EventVerifier | undefined,
): number {
  const lookup = collectionIdByReference(db);
  const fresh = new Map<string, number>();
  const stored = writeTransaction(db, () => {
    const touched = new Map<number, Projection>();
    let n = 0;
    for (const tev of events) {
      // The ids this copy gave are kept (a collection's id never changes); anything else, e.g. a
      // collection this desktop saved itself between two chunks, is looked up.
      let id =
        ids.get(tev.merchantReference) ??
        fresh.get(tev.merchantReference) ??
        (lookup.get(tev.merchantReference) as number | undefined);
      if (id === undefined) {
        const intent = intentFromTeamEvent(tev);
        if (intent) {
          id = insertIntentCollection(db, intent);
          fresh.set(tev.merchantReference, id);
        }
      }
      const ev = fromTeamEvent(tev, verify);
      // appendEvent's projection rules, applied to the row in memory once the event is stored.
      let p: Projection | undefined;
      let r: Projected | undefined;
      if (id !== undefined) {
        p = touched.get(id) ?? (st.row.get(id) as Projection);
        r = projectEvent(p, ev);
      }
      const kind = r ? r.kind : ev.kind;
      const info = st.insertEvent.run(...eventValues(id ?? null, ev, kind));
      // Not stored: this desktop already had it (its own write, e.g. a charge saved during the copy), as
      // appendEvent's dedupe would find; the row keeps the projection it had.
      n += info.changes;
      if (p && r && info.changes > 0) {
        Object.assign(p, r.next);
        p.last_event_id = Number(info.lastInsertRowid);
        touched.set(id!, p);
      }
    }
    for (const [id, p] of touched) st.update.run(...projectionValues(p), id);
    return n;
  });
  // Only once committed: a chunk rolled back gave no ids.
  for (const [ref, id] of fresh) ids.set(ref, id);
  return stored;
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
  /** false: leave the reconciliation to whoever uses the copy (a snapshot is reconciled by the desk that takes it). */
  reconcile?: boolean;
  /** This desk's own check of each signed event (team/evidence.ts), as applyEvents takes it. */
  verify?: EventVerifier;
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
  if (isEmpty(db)) {
    // Building an index once after the load is much cheaper than keeping it up to date row by row.
    const present = presentSchema(db);
    writeTransaction(db, () => {
      for (const name of wanted.keys()) if (present.has(name)) db.exec(`DROP INDEX ${name}`);
      for (const name of triggers.keys()) if (present.has(name)) db.exec(`DROP TRIGGER ${name}`);
    });
  }
  for (const [name, sql] of triggers) wanted.set(name, sql);
  // A larger page cache while the copy runs (restored after): the chunks and index builds touch far
  // more pages than the app's default keeps.
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  db.pragma('cache_size = -262144');
  // CREATE INDEX sorts with a helper thread where SQLite has them (this build does; elsewhere a no-op).
  const threads = db.pragma('threads', { simple: true }) as number;
  db.pragma('threads = 2');
  try {
    return await copyAll(o, totalSeq, wanted, chunk);
  } finally {
    db.pragma(`cache_size = ${cacheSize}`);
    db.pragma(`threads = ${threads}`);
  }
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
  const st = statements(db);
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
      applied += copyChunk(db, st, ids, page.events, o.verify);
      after = page.lastSeq;
      o.onProgress?.({ copiedSeq: after, totalSeq: Math.max(totalSeq, after) });
    }
    if (!page.more) break;
    if (o.stopped?.()) return null;
  }
  o.onPhase?.('copy', { waitMs });
  const present = presentSchema(db);
  writeTransaction(db, () => {
    for (const [name, sql] of wanted) if (!present.has(name)) db.exec(sql);
    setLastSeq(db, 'events', after, o.now());
  });
  o.onPhase?.('indexes');
  if (o.reconcile !== false) {
    await reconcileAll(db, { now: o.now() });
    o.onPhase?.('reconcile');
  }
  return { applied, lastSeq: after, head, marks };
}
