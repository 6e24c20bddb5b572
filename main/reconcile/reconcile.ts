// Reconciliation results in SQLite: per collection (incremental after each event, and a full recompute
// in batches that gives the same answer), kept in the reconciliation table (migration 003).
import type { Db } from '../store/db.js';
import {
  classify,
  DEFAULT_STALE_PENDING_AFTER_MS,
  type Classification,
  type ReconCollection,
  type ReconEvent,
} from './classify.js';
import { ReconcileError } from './errors.js';
import { launchWorker } from './launch-worker.js';

export interface ReconcileOptions {
  /** Reconciliation time (ms); defaults to Date.now(). Pass clock.now() from a Clock. */
  now?: number;
  stalePendingAfterMs?: number;
}

export interface Progress {
  done: number;
  total: number;
}

const EVENT_COLUMNS = 'id, source, kind, status, received_at, signature, amount_minor, currency, payload, note';

function opts(o: ReconcileOptions = {}) {
  return { now: o.now ?? Date.now(), stalePendingAfterMs: o.stalePendingAfterMs ?? DEFAULT_STALE_PENDING_AFTER_MS };
}

interface Statements {
  eventCollection: { get(eventId: number): number | null | undefined };
  collection: { get(id: number): ReconCollection | undefined };
  events: { all(id: number): ReconEvent[] };
  upsert: { run(...args: unknown[]): unknown };
}

const cache = new WeakMap<Db, Statements>();
function statements(db: Db): Statements {
  let s = cache.get(db);
  if (!s) {
    s = {
      eventCollection: db.prepare('SELECT collection_id FROM collection_events WHERE id = ?').pluck() as unknown as Statements['eventCollection'],
      collection: db.prepare('SELECT id, created_at, amount_minor, currency FROM collections WHERE id = ?') as unknown as Statements['collection'],
      events: db.prepare(`SELECT ${EVENT_COLUMNS} FROM collection_events WHERE collection_id = ? ORDER BY id`) as unknown as Statements['events'],
      upsert: db.prepare(
        // An upsert updates the row in place (REPLACE would delete and re-insert it, touching every index).
        `INSERT INTO reconciliation (collection_id, outcome, kinds, open_kinds, is_exception, last_event_id,
           computed_at, stale_at, resolved_by_event_id, resolution_note, initiate_status, redirect_status,
           callback_status, import_status, manual_status, completed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (collection_id) DO UPDATE SET outcome = excluded.outcome, kinds = excluded.kinds,
           open_kinds = excluded.open_kinds, is_exception = excluded.is_exception, last_event_id = excluded.last_event_id,
           computed_at = excluded.computed_at, stale_at = excluded.stale_at, resolved_by_event_id = excluded.resolved_by_event_id,
           resolution_note = excluded.resolution_note, initiate_status = excluded.initiate_status,
           redirect_status = excluded.redirect_status, callback_status = excluded.callback_status,
           import_status = excluded.import_status, manual_status = excluded.manual_status, completed_at = excluded.completed_at`,
      ),
    };
    cache.set(db, s);
  }
  return s;
}

function store(db: Db, id: number, c: Classification, now: number): void {
  statements(db).upsert.run(
    id,
    c.outcome,
    JSON.stringify(c.kinds),
    JSON.stringify(c.openKinds),
    c.isException ? 1 : 0,
    c.lastEventId,
    now,
    c.staleAt,
    c.resolvedByEventId,
    c.resolutionNote,
    c.sources.initiate,
    c.sources.redirect,
    c.sources.callback,
    c.sources.import,
    c.sources.manual,
    c.completedAt,
  );
}

/**
 * Re-classifies one collection from all its events and stores the result. Cheap (one indexed read);
 * call it after each event is appended. Returns null for an unknown collection id.
 */
export function reconcileCollection(db: Db, collectionId: number, options?: ReconcileOptions): Classification | null {
  const o = opts(options);
  const st = statements(db);
  const c = st.collection.get(collectionId);
  if (!c) return null;
  const result = classify(c, st.events.all(collectionId), o);
  store(db, collectionId, result, o.now);
  return result;
}

/**
 * Incremental step after one appended event (e.g. the callback receiver's onIngest with the stored
 * eventId): re-classifies that event's collection. Orphan events (no collection) are a no-op.
 */
export function reconcileEvent(db: Db, eventId: number, options?: ReconcileOptions): Classification | null {
  const id = statements(db).eventCollection.get(eventId);
  return id === null || id === undefined ? null : reconcileCollection(db, id, options);
}

export interface ReconcileQueue {
  /** Queue the collection of a newly stored event; it is reconciled on the next turn of the event loop. */
  addEvent(eventId: number): void;
  /** Reconcile what is queued now (one transaction). */
  flush(): number;
  close(): void;
}

/**
 * Incremental reconciliation for a busy receiver: events stored in the same moment are reconciled
 * together in one transaction, on the next turn of the event loop (a burst of callbacks costs one
 * commit, not one each). Options are read at flush time, so a changed setting applies at once.
 */
export function createReconcileQueue(db: Db, options: () => ReconcileOptions = () => ({})): ReconcileQueue {
  const events: number[] = [];
  let scheduled: NodeJS.Immediate | null = null;
  const flush = (): number => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = null;
    if (events.length === 0) return 0;
    const batch = events.splice(0);
    const st = statements(db);
    const o = opts(options());
    return db.transaction(() => {
      const ids = new Set<number>();
      for (const e of batch) {
        const id = st.eventCollection.get(e);
        if (id !== null && id !== undefined) ids.add(id);
      }
      for (const id of ids) reconcileCollection(db, id, o);
      return ids.size;
    })();
  };
  return {
    addEvent(eventId) {
      events.push(eventId);
      scheduled ??= setImmediate(flush);
    },
    flush,
    close() {
      flush();
    },
  };
}

/**
 * Brings the reconciliation table up to date without a full recompute: every collection with an event
 * newer than the high-water mark, every collection newer than the last reconciled one, and every
 * pending one whose stale time has passed. Returns how many collections were re-classified.
 */
export function reconcileNew(db: Db, options?: ReconcileOptions): number {
  const o = opts(options);
  let count = 0;
  db.transaction(() => {
    const hwm = (db.prepare('SELECT last_event_id FROM reconcile_state WHERE id = 1').pluck().get() as number | undefined) ?? 0;
    const maxEvent = (db.prepare('SELECT COALESCE(MAX(id), 0) FROM collection_events').pluck().get() as number) ?? 0;
    const ids = new Set<number>();
    for (const id of db
      .prepare('SELECT DISTINCT collection_id FROM collection_events WHERE id > ? AND collection_id IS NOT NULL')
      .pluck()
      .iterate(hwm) as Iterable<number>)
      ids.add(id);
    for (const id of db
      // Collections with no event (none should exist) beyond the last reconciled one; a rowid range, cheap.
      .prepare('SELECT id FROM collections WHERE id > (SELECT COALESCE(MAX(collection_id), 0) FROM reconciliation)')
      .pluck()
      .iterate() as Iterable<number>)
      ids.add(id);
    for (const id of db
      .prepare('SELECT collection_id FROM reconciliation WHERE stale_at IS NOT NULL AND stale_at <= ?')
      .pluck()
      .iterate(o.now) as Iterable<number>)
      ids.add(id);
    count = reconcileIds(db, [...ids].sort((a, b) => a - b), o);
    db.prepare('UPDATE reconcile_state SET last_event_id = ? WHERE id = 1').run(Math.max(hwm, maxEvent));
  })();
  return count;
}

/** Re-classifies the given collections (sorted ids) in chunks: two queries per 500 collections. */
function reconcileIds(db: Db, ids: number[], o: { now: number; stalePendingAfterMs: number }): number {
  let count = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const marks = chunk.map(() => '?').join(',');
    const cols = db
      .prepare(`SELECT id, created_at, amount_minor, currency FROM collections WHERE id IN (${marks}) ORDER BY id`)
      .all(...chunk) as ReconCollection[];
    const evRows = db
      .prepare(`SELECT collection_id, ${EVENT_COLUMNS} FROM collection_events WHERE collection_id IN (${marks}) ORDER BY collection_id, id`)
      .all(...chunk) as (ReconEvent & { collection_id: number })[];
    count += classifyAndStore(db, cols, evRows, o).count;
  }
  return count;
}

/** Classifies collections (sorted by id) against their events (sorted by collection_id, id) and stores the results. */
function classifyAndStore(
  db: Db,
  cols: ReconCollection[],
  evRows: (ReconEvent & { collection_id: number })[],
  o: { now: number; stalePendingAfterMs: number },
): { count: number; exceptions: number } {
  let i = 0;
  let exceptions = 0;
  for (const c of cols) {
    const evs: ReconEvent[] = [];
    while (i < evRows.length && evRows[i]!.collection_id < c.id) i++;
    while (i < evRows.length && evRows[i]!.collection_id === c.id) evs.push(evRows[i++]!);
    const r = classify(c, evs, o);
    if (r.isException) exceptions++;
    store(db, c.id, r, o.now);
  }
  return { count: cols.length, exceptions };
}

export interface ReconcileAllOptions extends ReconcileOptions {
  onProgress?: (p: Progress) => void;
  signal?: AbortSignal;
  /** Collections per transaction (default 5,000). */
  batchSize?: number;
}

/**
 * Full recompute of every collection, in batches (one transaction each, yielding between batches so a
 * caller can show progress and cancel). A cancelled run leaves every batch it finished consistent.
 */
export async function reconcileAll(db: Db, options: ReconcileAllOptions = {}): Promise<{ collections: number; exceptions: number }> {
  const o = opts(options);
  const batchSize = options.batchSize ?? 5000;
  const total = db.prepare('SELECT COUNT(*) FROM collections').pluck().get() as number;
  const startEvent = db.prepare('SELECT COALESCE(MAX(id), 0) FROM collection_events').pluck().get() as number;
  const pageCollections = db.prepare('SELECT id, created_at, amount_minor, currency FROM collections WHERE id > ? ORDER BY id LIMIT ?');
  const pageEvents = db.prepare(
    `SELECT collection_id, ${EVENT_COLUMNS} FROM collection_events WHERE collection_id BETWEEN ? AND ? ORDER BY collection_id, id`,
  );
  let after = 0;
  let done = 0;
  let exceptions = 0;
  options.onProgress?.({ done, total });
  for (;;) {
    if (options.signal?.aborted) throw new ReconcileError('cancelled', 'reconciliation cancelled');
    const batch = pageCollections.all(after, batchSize) as ReconCollection[];
    if (batch.length === 0) break;
    const first = batch[0]!.id;
    const last = batch[batch.length - 1]!.id;
    db.transaction(() => {
      // better-sqlite3 cannot write while an iterator is open: read the batch's events whole (bounded).
      const evRows = pageEvents.all(first, last) as (ReconEvent & { collection_id: number })[];
      exceptions += classifyAndStore(db, batch, evRows, o).exceptions;
    })();
    done += batch.length;
    after = last;
    options.onProgress?.({ done, total });
    await new Promise((r) => setImmediate(r));
  }
  db.prepare('UPDATE reconcile_state SET last_event_id = MAX(last_event_id, ?) WHERE id = 1').run(startEvent);
  return { collections: done, exceptions };
}

/** The stored result for one collection, or throws not_found. */
export function requireCollection(db: Db, collectionId: number): { id: number; merchant_reference: string } {
  const row = db.prepare('SELECT id, merchant_reference FROM collections WHERE id = ?').get(collectionId) as
    | { id: number; merchant_reference: string }
    | undefined;
  if (!row) throw new ReconcileError('not_found', `no collection with id ${collectionId}`, 'collectionId');
  return row;
}

/**
 * reconcileAll on a worker thread with its own connection: the calling (UI) thread stays free and the
 * memory of a million-row pass is released when it ends. Same result; cancel with `signal`.
 */
export function reconcileAllInWorker(
  dbFile: string,
  options: ReconcileOptions & { onProgress?: (p: Progress) => void; signal?: AbortSignal; batchSize?: number } = {},
): Promise<{ collections: number; exceptions: number }> {
  const o = opts(options);
  if (options.signal?.aborted) return Promise.reject(new ReconcileError('cancelled', 'reconciliation cancelled'));
  return new Promise((resolve, reject) => {
    const w = launchWorker(import.meta.url, 'reconcile-worker', { dbFile, ...o, batchSize: options.batchSize }, {
      maxYoungGenerationSizeMb: 8,
      maxOldGenerationSizeMb: 256,
    });
    let settled = false;
    const end = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      // Settle first: terminate() emits 'exit' before its promise resolves, which would otherwise
      // report a cancel as "worker stopped".
      end(() => reject(new ReconcileError('cancelled', 'reconciliation cancelled')));
      void w.terminate();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    w.on('message', (m: { type: string; done?: number; total?: number; collections?: number; exceptions?: number; message?: string }) => {
      if (m.type === 'progress') options.onProgress?.({ done: m.done ?? 0, total: m.total ?? 0 });
      else if (m.type === 'done') end(() => resolve({ collections: m.collections ?? 0, exceptions: m.exceptions ?? 0 }));
      else if (m.type === 'error') end(() => reject(new Error(`reconciliation failed: ${m.message}`)));
    });
    w.on('error', (e) => end(() => reject(e)));
    w.on('exit', (code) => end(() => reject(new Error(`reconciliation worker stopped (exit code ${code})`))));
  });
}
