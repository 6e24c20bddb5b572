// The ledger: the one way an event enters a desk's history. In ONE SQLite write transaction it stores
// the event (idempotent by dedupe key), moves its collection's projection (the rules are projectEvent's,
// collections/events.ts), reconciles the collection through the hook the composition root wires
// (main/app/ledger.ts: collections does not know reconcile), and, for an event the team database must
// get from this desk (a team profile's charge events), writes its outbox row (collections/outbox.ts;
// team/sync/push.ts sends it). Whatever part fails, none of it is stored.
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { PROJECTION_COLUMNS, projectEvent, type AppendResult, type NewEvent, type Projection } from './events.js';
import { withTeamKey } from './event-key.js';
import { addToOutbox } from './outbox.js';

export interface LedgerHooks {
  /**
   * Called for every stored event of a collection, inside the append's transaction: the composition
   * root wires the incremental reconciliation here (reconcile/incremental.ts reconcileAfterAppend).
   */
  afterAppend(db: Db, collectionId: number): void;
}

let hooks: LedgerHooks | null = null;

/** Sets what every append runs besides the store (the composition root calls it once, at start). */
export function wireLedger(h: LedgerHooks): void {
  hooks = h;
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
}

/** Appends one event and everything it implies, in one write transaction (BEGIN IMMEDIATE). Idempotent by dedupeKey. */
export function appendEvent(db: Db, ev: NewEvent, opts: AppendOptions = {}): AppendResult {
  return writeTransaction(db, () => append(db, ev, opts));
}

/**
 * appendEvent without a savepoint of its own, for a caller already inside a write transaction that is
 * rolled back WHOLE when this throws (the callback receiver's group commit, which then stores each
 * delivery alone). A savepoint per event cost more than the event's own statements; without it, a
 * throw after the insert would leave the event without its projection, hence the contract.
 */
export function appendEventInTransaction(db: Db, ev: NewEvent, opts: AppendOptions = {}): AppendResult {
  if (!db.inTransaction) throw new Error('appendEventInTransaction must run inside a write transaction');
  return append(db, ev, opts);
}

interface ProjectionRow extends Projection {
  id: number;
}

const stmtCache = new WeakMap<Db, ReturnType<typeof prepare>>();
function prepare(db: Db) {
  return {
    insert: db.prepare(
      `INSERT INTO collection_events (collection_id, merchant_reference, internal_reference, source, kind, status, received_at,
         signature, amount_minor, currency, dedupe_key, payload, note, actor)
       VALUES (@collectionId, @merchantReference, @internalReference, @source, @kind, @status, @receivedAt,
         @signature, @amountMinor, @currency, @dedupeKey, @payload, @note, @actor)
       ON CONFLICT (dedupe_key) DO NOTHING`,
    ),
    byKey: db.prepare(`SELECT id, kind FROM collection_events WHERE dedupe_key = ?`),
    row: db.prepare(
      `SELECT id, status, status_changed_at, status_message, redirect_signature, amount_minor, currency, internal_reference, payment_url,
         redirect_status, callback_status, flags, final_changes
       FROM collections WHERE id = ?`,
    ),
    /** UPDATEs by the set of columns that change: an index is rewritten only when a column it holds is SET. */
    updates: new Map<string, ReturnType<Db['prepare']>>(),
  };
}
function stmts(db: Db) {
  let s = stmtCache.get(db);
  if (!s) {
    s = prepare(db);
    stmtCache.set(db, s);
  }
  return s;
}

type ProjectionColumn = (typeof PROJECTION_COLUMNS)[number];

function updateProjection(db: Db, id: number, before: ProjectionRow, after: Record<ProjectionColumn, unknown>): void {
  const s = stmts(db);
  const changed = PROJECTION_COLUMNS.filter(
    (c) => c === 'last_event_id' || after[c] !== (before as unknown as Record<string, unknown>)[c],
  );
  const key = changed.join(',');
  let st = s.updates.get(key);
  if (!st) {
    st = db.prepare(`UPDATE collections SET ${changed.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`);
    s.updates.set(key, st);
  }
  st.run({ id, ...Object.fromEntries(changed.map((c) => [c, after[c]])) });
}

function append(db: Db, given: NewEvent, opts: AppendOptions): AppendResult {
  if (!hooks)
    throw new Error('the ledger is not wired: the composition root must call wireLedger (main/app/ledger.ts) first');
  const ev = opts.outbox ? withTeamKey(given) : given;
  const s = stmts(db);
  // No look-up of the dedupe key first: the insert below skips a stored key (ON CONFLICT DO NOTHING,
  // and the no_replace_key trigger), and only then is the stored event read. A duplicate is rare; a
  // look-up before every insert was one more index probe for each new event.
  const row = ev.collectionId === null ? undefined : (s.row.get(ev.collectionId) as ProjectionRow | undefined);
  if (ev.collectionId !== null && !row) {
    const existing = ev.dedupeKey ? (s.byKey.get(ev.dedupeKey) as { id: number; kind: string } | undefined) : undefined;
    if (existing)
      return { inserted: false, eventId: existing.id, kind: existing.kind, status: null, statusChanged: false };
    throw new Error(`collection ${ev.collectionId} does not exist`);
  }

  // Decide the projection first: the stored kind depends on it.
  const projected = row ? projectEvent(row, ev) : null;
  const kind = projected?.kind ?? ev.kind;

  const info = s.insert.run({
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
  });
  if (info.changes === 0) {
    // The dedupe key is already stored: the same fact (a retry, a re-import, another connection, or
    // the team's copy pulled back), so the team has it or its own outbox row is already written.
    const existing = s.byKey.get(ev.dedupeKey) as { id: number; kind: string };
    return {
      inserted: false,
      eventId: existing.id,
      kind: existing.kind,
      status: row?.status ?? null,
      statusChanged: false,
    };
  }
  const eventId = Number(info.lastInsertRowid);

  if (row && projected) {
    updateProjection(db, row.id, row, { ...projected.next, last_event_id: eventId });
    // Every stored event of a collection is reconciled here, in the same transaction.
    hooks.afterAppend(db, row.id);
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
