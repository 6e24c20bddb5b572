// The ledger: the one way an event enters a desk's history. In ONE SQLite write transaction it stores
// the event (idempotent by dedupe key), moves its collection's projection (the rules are projectEvent's,
// collections/event-rules.ts), reconciles the collection through the reconciliation the ledger was
// created with (createLedger; main/app/ledger.ts composes it: collections does not know reconcile), and,
// for an event the team database must get from this desk (a team profile's charge events), writes its
// outbox row (collections/outbox.ts; team/sync/push.ts sends it). Whatever part fails, none of it is stored. The statements are the
// store's (store/sqlite/ledger/); what to write and why is here.
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { eventByKey, insertEvent, storedKeysIn, type EventInsert } from '../store/sqlite/ledger/collection-events.js';
import {
  projectionOf,
  projectionsIn,
  updateProjection,
  type ProjectionRow,
} from '../store/sqlite/ledger/projection.js';
import { PROJECTION_COLUMNS, projectEvent, type AppendResult, type NewEvent } from './event-rules.js';
import { withTeamKey } from './event-key.js';
import { addToOutbox } from './outbox.js';

/**
 * What the ledger runs besides the store: the reconciliation the composition root builds it with
 * (main/app/ledger.ts composeLedger: collections does not know reconcile).
 */
export interface LedgerReconciliation {
  /**
   * Called for every stored event of a collection, inside the append's transaction: the composition
   * root gives the incremental reconciliation here (reconcile/incremental.ts Reconciler.afterAppend).
   */
  afterAppend(db: Db, collectionId: number): void;
  /**
   * Runs `fn` (many appends) in one write transaction, each collection it appends to reconciled once at
   * its end instead of after every event (reconcile/incremental.ts Reconciler.onceAfter).
   */
  onceAfter<T>(db: Db, fn: () => T): T;
  /** Reconciles every collection again (after a bulk copy of a history: reconcile/reconcile.ts reconcileAll). */
  all(db: Db, o: { now: number }): Promise<unknown>;
}

/**
 * The one way an event enters a desk's history, built once by each process's composition root
 * (createLedger, through main/app/ledger.ts composeLedger) and passed to every writer that stores events.
 */
export interface Ledger {
  /**
   * Appends one event and everything it implies. Idempotent by dedupeKey.
   *
   * By default in a write transaction of its own (BEGIN IMMEDIATE; a savepoint inside the caller's), so a
   * throw stores none of it. `opts.transaction: 'caller'` runs without a savepoint, for a caller already
   * inside a write transaction that is rolled back WHOLE when this throws (the callback receiver's group
   * commit, which then stores each delivery alone): a savepoint per event cost more than the event's own
   * statements, and without it a throw after the insert would leave the event without its projection,
   * hence the contract.
   */
  append(db: Db, ev: NewEvent, opts?: AppendOptions): AppendResult;
  /**
   * Appends many events (`fn` calls append for each) in ONE write transaction, each collection they touch
   * reconciled once at the end: a team desk applying a pulled batch, the callback receiver's group commit.
   */
  batch<T>(db: Db, fn: () => T): T;
  /**
   * Appends a set of events in order (a team desk's pulled batch, in seq order) inside the caller's
   * batch scope, with what append does for each in turn, done once for the set: the stored keys
   * found with one read (a duplicate stores nothing), the projections of the collections it touches read
   * with one statement and folded in memory by projectEvent in the set's order (each event stored with the
   * kind the fold gives it), each touched collection's projection written once (the columns the set
   * changed), and each reconciled once at the end of the scope. The rows are those of append called for
   * each (test/team/sync-bulk.test.ts, convergence.test.ts). Events are inserted one cached statement each,
   * which costs SQLite less a row than one statement over a JSON array of the set (docs/benchmarks.md,
   * "Following a busy team"). Never for an event the team must get from this desk (no outbox row).
   */
  appendSet(db: Db, events: readonly NewEvent[]): SetAppended;
  /**
   * A collection's stored events were rewritten in place of appending (a team desk folding a reference again
   * in the record's order, team/sync/refold.ts): runs what every append runs (its reconciliation), inside
   * the caller's write transaction.
   */
  afterRewrite(db: Db, collectionId: number): void;
  /** Reconciles every collection of the history again: after a new team desk copied the record in bulk. */
  reconcileHistory(db: Db, o: { now: number }): Promise<unknown>;
}

/** The ledger that runs `reconciliation` with every append (the composition root's one). */
export function createLedger(reconciliation: LedgerReconciliation): Ledger {
  return {
    append: (db, ev, opts = {}) => appendOne(reconciliation, db, ev, opts),
    batch: (db, fn) => reconciliation.onceAfter(db, fn),
    appendSet: (db, events) => appendSet(reconciliation, db, events),
    afterRewrite: (db, collectionId) => reconciliation.afterAppend(db, collectionId),
    reconcileHistory: (db, o) => reconciliation.all(db, o),
  };
}

export interface AppendOptions {
  /**
   * The team database must get this event from this desk (a team profile's charge events: what the
   * service answered here): it is keyed for the team (withTeamKey) and gets an outbox row in the same
   * transaction. Never set for events pulled from the team, nor for those recorded there first.
   */
  outbox?: boolean;
  /** The time the outbox row is written (default Date.now()). */
  now?: number;
  /** 'caller': no transaction nor savepoint of its own (see Ledger.append). Default 'own'. */
  transaction?: 'own' | 'caller';
}

/** Ledger.append, with the reconciliation it runs. */
function appendOne(r: LedgerReconciliation, db: Db, ev: NewEvent, opts: AppendOptions): AppendResult {
  if (opts.transaction !== 'caller') return writeTransaction(db, () => append(r, db, ev, opts));
  if (!db.inTransaction) throw new Error("Ledger.append with transaction 'caller' must run inside a write transaction");
  return append(r, db, ev, opts);
}

type ProjectionColumn = (typeof PROJECTION_COLUMNS)[number];

/** The columns the event changes (and last_event_id, always): only those are SET. */
function changedColumns(before: ProjectionRow, after: Record<ProjectionColumn, unknown>): ProjectionColumn[] {
  return PROJECTION_COLUMNS.filter(
    (c) => c === 'last_event_id' || after[c] !== (before as unknown as Record<string, unknown>)[c],
  );
}

/** The event's collection_events row, stored with `kind` (the projection's decision, or a refold's). */
export function eventRow(ev: NewEvent, kind: string): EventInsert {
  return {
    collectionId: ev.collectionId,
    merchantReference: ev.merchantReference,
    internalReference: ev.internalReference ?? null,
    source: ev.source,
    kind,
    status: ev.status ?? null,
    receivedAt: ev.receivedAt,
    signature: ev.signature,
    amountMinor: ev.amountMinor ?? null,
    currency: ev.currency ?? null,
    dedupeKey: ev.dedupeKey ?? null,
    payload: ev.payload ?? null,
    note: ev.note ?? null,
    actor: ev.actor ?? null,
  };
}

function append(r: LedgerReconciliation, db: Db, given: NewEvent, opts: AppendOptions): AppendResult {
  const ev = opts.outbox ? withTeamKey(given) : given;
  // No look-up of the dedupe key first: the insert below skips a stored key (ON CONFLICT DO NOTHING,
  // and the no_replace_key trigger), and only then is the stored event read. A duplicate is rare; a
  // look-up before every insert was one more index probe for each new event.
  const row = ev.collectionId === null ? undefined : projectionOf(db, ev.collectionId);
  if (ev.collectionId !== null && !row) {
    const existing = ev.dedupeKey ? eventByKey(db, ev.dedupeKey) : undefined;
    if (existing)
      return { inserted: false, eventId: existing.id, kind: existing.kind, status: null, statusChanged: false };
    throw new Error(`collection ${ev.collectionId} does not exist`);
  }

  // Decide the projection first: the stored kind depends on it.
  const projected = row ? projectEvent(row, ev) : null;
  const kind = projected?.kind ?? ev.kind;

  const eventId = insertEvent(db, eventRow(ev, kind));
  if (eventId === null) {
    // The dedupe key is already stored: the same fact (a retry, a re-import, another connection, or
    // the team's copy pulled back), so the team has it or its own outbox row is already written.
    const existing = eventByKey(db, ev.dedupeKey!)!;
    return {
      inserted: false,
      eventId: existing.id,
      kind: existing.kind,
      status: row?.status ?? null,
      statusChanged: false,
    };
  }

  if (row && projected) {
    const after = { ...projected.next, last_event_id: eventId };
    updateProjection(db, row.id, changedColumns(row, after), after);
    // Every stored event of a collection is reconciled here, in the same transaction.
    r.afterAppend(db, row.id);
  }
  if (opts.outbox) addToOutbox(db, eventId, ev, opts.now ?? Date.now());
  return {
    inserted: true,
    eventId,
    kind,
    status: projected?.next.status ?? null,
    statusChanged: projected?.statusChanged ?? false,
  };
}

/** What appendSet stored: per event, in order, its new id, or null when its dedupe key was stored already. */
export interface SetAppended {
  ids: (number | null)[];
  /** The collections the set gave an event, each once, in the order first touched. */
  touched: number[];
}

/** Ledger.appendSet, with the reconciliation it runs. */
function appendSet(r: LedgerReconciliation, db: Db, events: readonly NewEvent[]): SetAppended {
  if (!db.inTransaction) throw new Error('appendSet must run inside a write transaction (Ledger.batch)');
  const keys = events.flatMap((e) => (e.dedupeKey ? [e.dedupeKey] : []));
  const stored = new Set(keys.length ? storedKeysIn(db, JSON.stringify(keys)) : []);
  const wanted = [...new Set(events.flatMap((e) => (e.collectionId === null ? [] : [e.collectionId])))];
  const before = new Map(wanted.length ? projectionsIn(db, JSON.stringify(wanted)).map((r) => [r.id, r]) : []);
  const folded = new Map<number, ProjectionRow & { last_event_id: number }>();
  const ids: (number | null)[] = [];
  for (const ev of events) {
    if (ev.dedupeKey && stored.has(ev.dedupeKey)) {
      ids.push(null);
      continue;
    }
    let row: (ProjectionRow & { last_event_id?: number }) | undefined;
    if (ev.collectionId !== null) {
      row = folded.get(ev.collectionId) ?? before.get(ev.collectionId);
      if (!row) throw new Error(`collection ${ev.collectionId} does not exist`);
    }
    const projected = row ? projectEvent(row, ev) : null;
    const eventId = insertEvent(db, eventRow(ev, projected?.kind ?? ev.kind));
    if (ev.dedupeKey) stored.add(ev.dedupeKey);
    ids.push(eventId);
    if (row && projected && eventId !== null) {
      folded.set(row.id, { ...row, ...projected.next, last_event_id: eventId });
    }
  }
  for (const [id, after] of folded) {
    updateProjection(db, id, changedColumns(before.get(id)!, after), after as unknown as Record<string, unknown>);
    r.afterAppend(db, id);
  }
  return { ids, touched: [...folded.keys()] };
}
