// The incremental path: one collection re-classified from all its events and stored, called by
// the ledger for every stored event (in its transaction; main/app/ledger.ts wires it), and the sweep
// for what no event drives. No worker or import.meta here: the composition root imports it, and so
// does everything that type-checks the charge service (the preload build included).
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { storedStalePendingAfterMs } from '../store/sqlite/stale-pending.js';
import {
  classify,
  DEFAULT_STALE_PENDING_AFTER_MS,
  type Classification,
  type ReconCollection,
  type ReconEvent,
} from './classify.js';
import { kindSetsSql, PAYLOAD_ONLY_AMOUNT, RECONCILE_RANGE_SQL, UNDECIDED } from './full-sql.js';

export interface ReconcileOptions {
  /** Reconciliation time (ms); defaults to Date.now(). Pass clock.now() from a Clock. */
  now?: number;
  stalePendingAfterMs?: number;
}

const EVENT_COLUMNS = 'id, source, kind, status, received_at, signature, amount_minor, currency, payload, note';

export function opts(o: ReconcileOptions = {}) {
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
      eventCollection: db
        .prepare('SELECT collection_id FROM collection_events WHERE id = ?')
        .pluck() as unknown as Statements['eventCollection'],
      collection: db.prepare(
        'SELECT id, created_at, amount_minor, currency FROM collections WHERE id = ?',
      ) as unknown as Statements['collection'],
      events: db.prepare(
        `SELECT ${EVENT_COLUMNS} FROM collection_events WHERE collection_id = ? ORDER BY id`,
      ) as unknown as Statements['events'],
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

const optionSources = new WeakMap<Db, () => ReconcileOptions>();

/**
 * Where the incremental path reads its clock (and, if given, stale threshold) for this connection.
 * Whatever the source leaves out: Date.now() and the stored stalePendingAfterMs setting (one indexed
 * read, so it is cheap for every appended event and follows a changed setting at once).
 */
export function setReconcileOptions(db: Db, source: () => ReconcileOptions): void {
  optionSources.set(db, source);
}

function currentOptions(db: Db): Required<ReconcileOptions> {
  const o = optionSources.get(db)?.() ?? {};
  return { now: o.now ?? Date.now(), stalePendingAfterMs: o.stalePendingAfterMs ?? storedStalePendingAfterMs(db) };
}

/** Collections appended to inside reconcileOnceAfter, per connection; absent outside one. */
const touchedInScope = new WeakMap<Db, Set<number>>();

/**
 * The one incremental path: appendEvent calls this for every stored event of a collection, inside the
 * append's transaction, so the reconciliation row never lags the history whatever wrote the event
 * (charge, redirect, receiver, import, resolution). Inside reconcileOnceAfter the collection is only
 * noted, and re-classified at the end of that scope, still before its transaction commits.
 */
export function reconcileAfterAppend(db: Db, collectionId: number): void {
  const touched = touchedInScope.get(db);
  if (touched) touched.add(collectionId);
  else reconcileCollection(db, collectionId, currentOptions(db));
}

/**
 * Runs `fn` (which appends events) in one write transaction and re-classifies every collection it
 * appended to ONCE, at the end, in the same transaction: a group of callbacks costs two batched reads
 * instead of three statements per event, and a collection with several events in the group is
 * classified once, from all of them. If `fn` or the reconciliation throws, nothing of it is committed.
 * A scope inside another one leaves the work to the outer scope.
 */
export function reconcileOnceAfter<T>(db: Db, fn: () => T): T {
  // Set up outside any transaction: a temporary table created inside one would go with its rollback.
  const set = db.inTransaction ? setStatements.get(db) : setStatementsOf(db);
  return writeTransaction(db, () => {
    if (touchedInScope.has(db)) return fn();
    const touched = new Set<number>();
    touchedInScope.set(db, touched);
    let result: T;
    try {
      result = fn();
    } finally {
      touchedInScope.delete(db);
    }
    if (touched.size)
      reconcileGiven(
        db,
        set ?? null,
        [...touched].sort((a, b) => a - b),
        currentOptions(db),
      );
    return result;
  });
}

interface SetStatements {
  /** The full recompute's statement over a JSON array of ids instead of an id range. */
  classify: { run(p: { ids: string; now: number; stale: number }): unknown };
  /** Of those ids: what the statement left to classify(), and what needs it anyway (an amount only in a payload). */
  leftToJs: { all(p: { ids: string }): number[] };
}
const setStatements = new WeakMap<Db, SetStatements | null>();
const RANGE = 'c.id BETWEEN @lo AND @hi';
/** Whether groups are classified set-based (a test keeps it so when full-sql.ts changes its statement). */
export const GROUPS_SET_BASED = RECONCILE_RANGE_SQL.split(RANGE).length === 2;
const IDS = 'SELECT value FROM json_each(@ids)';

/**
 * The group's set-based classification, prepared once per connection (outside a transaction). Null
 * when the full recompute's statement no longer selects its collections by RANGE: then the group is
 * classified in JavaScript, as before, which gives the same rows only slower.
 */
function setStatementsOf(db: Db): SetStatements | null {
  let s = setStatements.get(db);
  if (s !== undefined) return s;
  s = null;
  if (GROUPS_SET_BASED) {
    for (const sql of kindSetsSql()) db.exec(sql);
    s = {
      classify: db.prepare(
        RECONCILE_RANGE_SQL.replace(RANGE, `c.id IN (${IDS})`),
      ) as unknown as SetStatements['classify'],
      leftToJs: db
        .prepare(
          `SELECT collection_id FROM reconciliation WHERE collection_id IN (SELECT value FROM json_each(@ids)) AND outcome = '${UNDECIDED}'
           UNION SELECT collection_id FROM collection_events WHERE collection_id IN (SELECT value FROM json_each(@ids)) AND ${PAYLOAD_ONLY_AMOUNT}`,
        )
        .pluck() as unknown as SetStatements['leftToJs'],
    };
  }
  setStatements.set(db, s);
  return s;
}

/**
 * Re-classifies the given collections (sorted, each once), 500 at a time, as the full recompute does:
 * with `set` (prepared outside the transaction), one statement classifies them in SQL from the indexed
 * terms of their events (no event row crosses into JavaScript), and classify() decides what it leaves
 * undecided and what has an amount only in a payload, exactly as reconcileAll does per range; without
 * it, classify() decides them all. The same transaction either way, so the '?' rows are never seen.
 * Returns how many collections it classified.
 */
function reconcileGiven(
  db: Db,
  set: SetStatements | null,
  ids: number[],
  o: { now: number; stalePendingAfterMs: number },
): number {
  let count = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    if (!set) {
      count += classifyInJs(db, JSON.stringify(chunk), o);
      continue;
    }
    const json = JSON.stringify(chunk);
    set.classify.run({ ids: json, now: o.now, stale: o.stalePendingAfterMs });
    const rest = set.leftToJs.all({ ids: json });
    if (rest.length) classifyInJs(db, JSON.stringify(rest), o);
    count += chunk.length;
  }
  return count;
}

interface BatchStatements {
  collections: { all(idsJson: string): ReconCollection[] };
  events: { all(idsJson: string): (ReconEvent & { collection_id: number })[] };
}
const batchCache = new WeakMap<Db, BatchStatements>();
/** Prepared once per connection: the ids go in as one JSON array, so one statement serves any count. */
function batchStatements(db: Db): BatchStatements {
  let s = batchCache.get(db);
  if (!s) {
    const ids = 'SELECT value FROM json_each(?)';
    s = {
      collections: db.prepare(
        `SELECT id, created_at, amount_minor, currency FROM collections WHERE id IN (${ids}) ORDER BY id`,
      ) as unknown as BatchStatements['collections'],
      events: db.prepare(
        `SELECT collection_id, ${EVENT_COLUMNS} FROM collection_events WHERE collection_id IN (${ids}) ORDER BY collection_id, id`,
      ) as unknown as BatchStatements['events'],
    };
    batchCache.set(db, s);
  }
  return s;
}

/** classify() for the collections of a JSON array of ids (at most 500): two reads, then one upsert each. */
function classifyInJs(db: Db, idsJson: string, o: { now: number; stalePendingAfterMs: number }): number {
  const st = batchStatements(db);
  return classifyAndStore(db, st.collections.all(idsJson), st.events.all(idsJson), o).count;
}

/**
 * What no event drives: pending collections whose stale time has passed (reconciliation_stale index),
 * and collections with no reconciliation row yet (rows written outside appendEvent, e.g. before this
 * path existed). Returns how many were re-classified.
 */
export function reconcileDue(db: Db, options?: ReconcileOptions): number {
  const o = opts(options ?? currentOptions(db));
  // Prepared outside the transaction, as for a group (reconcileOnceAfter).
  const set = db.inTransaction ? (setStatements.get(db) ?? null) : setStatementsOf(db);
  return writeTransaction(db, () => {
    const ids = new Set(
      db
        .prepare('SELECT collection_id FROM reconciliation WHERE stale_at IS NOT NULL AND stale_at <= ?')
        .pluck()
        .all(o.now) as number[],
    );
    for (const id of db
      .prepare('SELECT id FROM collections WHERE id > (SELECT COALESCE(MAX(collection_id), 0) FROM reconciliation)')
      .pluck()
      .all() as number[])
      ids.add(id);
    return reconcileGiven(
      db,
      set,
      [...ids].sort((a, b) => a - b),
      o,
    );
  });
}

/** Runs reconcileDue now and then every `everyMs` (default a minute) until closed. */
export function startReconcileSweep(
  db: Db,
  options: () => ReconcileOptions,
  everyMs = 60_000,
  onError: (e: unknown) => void = () => {},
): { close(): void } {
  const sweep = () => {
    try {
      reconcileDue(db, options());
    } catch (e) {
      onError(e);
    }
  };
  sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return { close: () => clearInterval(timer) };
}

/**
 * Re-classifies the given collections (sorted ids) with classify(), 500 at a time: what the full
 * recompute's statement leaves undecided (reconcile.ts).
 */
export function reconcileIds(db: Db, ids: number[], o: { now: number; stalePendingAfterMs: number }): number {
  return reconcileGiven(db, null, ids, o);
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
