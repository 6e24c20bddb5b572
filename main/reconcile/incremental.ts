// The incremental path: one collection re-classified from all its events and stored, called by the
// ledger for every stored event (in its transaction; main/app/ledger.ts composes the ledger on a
// Reconciler, which keeps what the path remembers per connection), and the sweep for what no event
// drives. No worker or import.meta here: the composition root imports it, and so does everything that
// type-checks the charge service (the preload build included). The statements
// are the store's (main/store/sqlite/reconcile/); the rules are classify.ts.
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { storedStalePendingAfterMs } from '../store/sqlite/stale-pending.js';
import {
  eventCollectionId,
  reconCollection,
  reconCollectionsIn,
  reconEvents,
  reconEventsIn,
} from '../store/sqlite/reconcile/histories.js';
import { staleDueIds, unreconciledIds, upsertReconciliation } from '../store/sqlite/reconcile/reconciliation-rows.js';
import { classifyIdsLeavingRest, installKindSets } from '../store/sqlite/reconcile/full-pass.js';
import {
  classify,
  DEFAULT_STALE_PENDING_AFTER_MS,
  type Classification,
  type ReconCollection,
  type ReconEvent,
} from './classify.js';

export interface ReconcileOptions {
  /** Reconciliation time (ms); defaults to Date.now(). Pass clock.now() from a Clock. */
  now?: number;
  stalePendingAfterMs?: number;
}

type Resolved = { now: number; stalePendingAfterMs: number };

export function opts(o: ReconcileOptions = {}): Resolved {
  return { now: o.now ?? Date.now(), stalePendingAfterMs: o.stalePendingAfterMs ?? DEFAULT_STALE_PENDING_AFTER_MS };
}

/**
 * How a group of collections (Reconciler.onceAfter: the receiver's group commit, a team desk's pulled batch)
 * is classified: 'sql', by the full recompute's statement over the group's ids (the indexed terms of their
 * events; classify() only for what it leaves undecided), or 'rules', by classify() for each. Both give the
 * same rows (test/reconcile/routes-agree.test.ts); 'sql' reads no event row into JavaScript.
 */
export type GroupRoute = 'sql' | 'rules';

function store(db: Db, id: number, c: Classification, now: number): void {
  upsertReconciliation(db, {
    collection_id: id,
    outcome: c.outcome,
    kinds: JSON.stringify(c.kinds),
    open_kinds: JSON.stringify(c.openKinds),
    is_exception: c.isException ? 1 : 0,
    last_event_id: c.lastEventId,
    computed_at: now,
    stale_at: c.staleAt,
    resolved_by_event_id: c.resolvedByEventId,
    resolution_note: c.resolutionNote,
    initiate_status: c.sources.initiate,
    redirect_status: c.sources.redirect,
    callback_status: c.sources.callback,
    import_status: c.sources.import,
    manual_status: c.sources.manual,
    completed_at: c.completedAt,
  });
}

/**
 * Re-classifies one collection from all its events and stores the result. Cheap (one indexed read);
 * call it after each event is appended. Returns null for an unknown collection id.
 */
export function reconcileCollection(db: Db, collectionId: number, options?: ReconcileOptions): Classification | null {
  const o = opts(options);
  const c = reconCollection(db, collectionId);
  if (!c) return null;
  const result = classify(c, reconEvents(db, collectionId), o);
  store(db, collectionId, result, o.now);
  return result;
}

/**
 * Incremental step after one appended event (e.g. the callback receiver's onIngest with the stored
 * eventId): re-classifies that event's collection. Orphan events (no collection) are a no-op.
 */
export function reconcileEvent(db: Db, eventId: number, options?: ReconcileOptions): Classification | null {
  const id = eventCollectionId(db, eventId);
  return id === null || id === undefined ? null : reconcileCollection(db, id, options);
}

/**
 * Re-classifies the given collections (sorted, each once), 500 at a time, as the full recompute does:
 * `inSql`, one statement classifies them in SQL from the indexed terms of their events (no event row
 * crosses into JavaScript), and classify() decides what it leaves undecided and what has an amount only
 * in a payload, exactly as reconcileAll does per range; otherwise classify() decides them all. The same
 * transaction either way, so the '?' rows are never seen. Returns how many collections it classified.
 */
function reconcileGiven(db: Db, inSql: boolean, ids: number[], o: Resolved): number {
  let count = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const json = JSON.stringify(chunk);
    if (!inSql) {
      count += classifyInJs(db, json, o);
      continue;
    }
    const rest = classifyIdsLeavingRest(db, json, o.now, o.stalePendingAfterMs);
    if (rest.length) classifyInJs(db, JSON.stringify(rest), o);
    count += chunk.length;
  }
  return count;
}

/**
 * classify() for the collections of a JSON array of ids (at most 500): two reads, then one upsert each.
 * Collections (sorted by id) are matched to their events (sorted by collection_id, id). Returns how
 * many of the ids are collections.
 */
function classifyInJs(db: Db, idsJson: string, o: Resolved): number {
  const cols: ReconCollection[] = reconCollectionsIn(db, idsJson);
  const evRows = reconEventsIn(db, idsJson);
  let i = 0;
  for (const c of cols) {
    const evs: ReconEvent[] = [];
    while (i < evRows.length && evRows[i]!.collection_id < c.id) i++;
    while (i < evRows.length && evRows[i]!.collection_id === c.id) evs.push(evRows[i++]!);
    store(db, c.id, classify(c, evs, o), o.now);
  }
  return cols.length;
}

/**
 * Re-classifies the given collections (sorted ids) with classify(), 500 at a time: what the full
 * recompute's statement leaves undecided (reconcile.ts).
 */
export function reconcileIds(db: Db, ids: number[], o: Resolved): number {
  return reconcileGiven(db, false, ids, o);
}

/**
 * What the incremental path keeps per connection (statements are the store's cache): where it reads its
 * clock, the collections a onceAfter scope has appended to, its group route, and whether this
 * connection's temporary kind sets were installed (outside a transaction), so a group may be classified
 * in SQL. Created on the connection's first use; a closed connection's goes with it.
 */
interface ReconcileSession {
  /** setOptions's source; absent: Date.now() and the stored setting. */
  options: (() => ReconcileOptions) | null;
  /** Collections appended to inside onceAfter; null outside one. */
  touched: Set<number> | null;
  route: GroupRoute;
  /** installKindSets was done on this connection (outside a transaction). */
  setBased: boolean;
}

/**
 * The incremental reconciliation of one process, built once by its composition root (main/app/ledger.ts
 * composeLedger gives it to the ledger) and passed to whatever sets its clock or sweeps: what it keeps
 * per connection is its own, never the module's.
 */
export interface Reconciler {
  /**
   * Where the incremental path reads its clock (and, if given, stale threshold) for this connection.
   * Whatever the source leaves out: Date.now() and the stored stalePendingAfterMs setting (one indexed
   * read, so it is cheap for every appended event and follows a changed setting at once).
   */
  setOptions(db: Db, source: () => ReconcileOptions): void;
  /** Sets how this connection classifies a group (default 'sql'). */
  setGroupRoute(db: Db, route: GroupRoute): void;
  /**
   * The one incremental path: the ledger calls this for every stored event of a collection, inside the
   * append's transaction, so the reconciliation row never lags the history whatever wrote the event
   * (charge, redirect, receiver, import, resolution). Inside onceAfter the collection is only
   * noted, and re-classified at the end of that scope, still before its transaction commits.
   */
  afterAppend(db: Db, collectionId: number): void;
  /**
   * Runs `fn` (which appends events) in one write transaction and re-classifies every collection it
   * appended to ONCE, at the end, in the same transaction: a group of callbacks costs two batched reads
   * instead of three statements per event, and a collection with several events in the group is
   * classified once, from all of them. If `fn` or the reconciliation throws, nothing of it is committed.
   * A scope inside another one leaves the work to the outer scope.
   */
  onceAfter<T>(db: Db, fn: () => T): T;
  /**
   * What no event drives: pending collections whose stale time has passed (reconciliation_stale index),
   * and collections with no reconciliation row yet (rows written outside the ledger, e.g. before this
   * path existed). Returns how many were re-classified.
   */
  due(db: Db, options?: ReconcileOptions): number;
  /** Runs due now and then every `everyMs` (default a minute) until closed. */
  startSweep(
    db: Db,
    options: () => ReconcileOptions,
    everyMs?: number,
    onError?: (e: unknown) => void,
  ): { close(): void };
}

export function createReconciler(): Reconciler {
  const sessions = new WeakMap<Db, ReconcileSession>();
  function sessionOf(db: Db): ReconcileSession {
    let s = sessions.get(db);
    if (!s) sessions.set(db, (s = { options: null, touched: null, route: 'sql', setBased: false }));
    return s;
  }

  /**
   * Whether a group is classified in SQL on this connection: the route says so and the temporary kind sets
   * are installed, which happens outside a transaction (a temporary table created inside one would go with
   * its rollback); inside one, only if an earlier call installed them, else the rules classify it.
   */
  function groupsInSql(db: Db): boolean {
    const s = sessionOf(db);
    if (s.route !== 'sql') return false;
    if (!s.setBased && !db.inTransaction) {
      installKindSets(db);
      s.setBased = true;
    }
    return s.setBased;
  }

  function currentOptions(db: Db): Resolved {
    const o = sessions.get(db)?.options?.() ?? {};
    return { now: o.now ?? Date.now(), stalePendingAfterMs: o.stalePendingAfterMs ?? storedStalePendingAfterMs(db) };
  }

  function due(db: Db, options?: ReconcileOptions): number {
    const o = opts(options ?? currentOptions(db));
    // Set up outside the transaction, as for a group (onceAfter).
    const inSql = groupsInSql(db);
    return writeTransaction(db, () => {
      const ids = new Set(staleDueIds(db, o.now));
      for (const id of unreconciledIds(db)) ids.add(id);
      return reconcileGiven(
        db,
        inSql,
        [...ids].sort((a, b) => a - b),
        o,
      );
    });
  }

  return {
    setOptions(db, source) {
      sessionOf(db).options = source;
    },
    setGroupRoute(db, route) {
      sessionOf(db).route = route;
    },
    afterAppend(db, collectionId) {
      const touched = sessions.get(db)?.touched;
      if (touched) touched.add(collectionId);
      else reconcileCollection(db, collectionId, currentOptions(db));
    },
    onceAfter(db, fn) {
      // Set up outside any transaction (groupsInSql).
      const inSql = groupsInSql(db);
      const session = sessionOf(db);
      return writeTransaction(db, () => {
        if (session.touched) return fn();
        const touched = new Set<number>();
        session.touched = touched;
        let result: ReturnType<typeof fn>;
        try {
          result = fn();
        } finally {
          session.touched = null;
        }
        if (touched.size)
          reconcileGiven(
            db,
            inSql,
            [...touched].sort((a, b) => a - b),
            currentOptions(db),
          );
        return result;
      });
    },
    due,
    startSweep(db, options, everyMs = 60_000, onError = () => {}) {
      const sweep = () => {
        try {
          due(db, options());
        } catch (e) {
          onError(e);
        }
      };
      sweep();
      const timer = setInterval(sweep, everyMs);
      timer.unref();
      return { close: () => clearInterval(timer) };
    },
  };
}
