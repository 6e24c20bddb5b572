// A desk's own facts are provisional until the team record shows them (DESIGN.md "concurrent operators":
// order and "latest" come from the team's seq, never a local id). A desk stores some events before the
// record has them: what the service answered its charge (initialize answer, redirect, the window closing:
// stored first, sent through the outbox) and what a person decided here (a resolution, an import: recorded
// there first, then stored here). Meanwhile the desk applies other desks' events, so the record may
// place one of its own after events this desk stored later (serve's callback committed while the redirect
// waited in the outbox), or keep it with other values (the database's actor and time). Folded in the
// desk's order, the projection (which final status is newest, whether it "changed after final") and the
// reconciliation would then differ from every other desk's.
//
// So when a pulled event is one this desk already holds (the ledger's append stores nothing), the apply compares
// the two (noteComeback): other values, or an event applied since that the record placed before it, mark
// the reference (SQLite team_refold, in the apply's transaction). After the pull, each marked reference is
// folded again from the record (refoldMarked): its events as the record has them, in seq order, stored
// anew (so local ids follow the record's order, which every reader of a desk's history relies on), then
// this desk's own events the record does not have yet (pending in the outbox, in the order stored), the
// projection and each event's kind folded in that order as the replay would (bulk.ts), the collection's
// intent columns from the record's intent, and the collection reconciled again. An event the team database
// refused stays on the desk (its timeline says so) but is left out of the fold: a desk never shows as
// fact what the database refused.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import type { CollectionEventRow } from '../../store/sqlite/ledger/collection-events.js';
import { collectionIdOf } from '../../store/sqlite/ledger/intent-rows.js';
import { writeProjection, intentProjection } from '../../store/sqlite/team/collection-projection.js';
import { foldBasis } from '../../store/sqlite/team/event-verdicts.js';
import {
  clearRefold,
  hasPulledEventAfter,
  localEventsOf,
  markRefold,
  refoldQueue,
  rewriteEventsOf,
  storedEventByKey,
  writeIntentColumns,
  type LocalEventRow,
} from '../../store/sqlite/team/refold.js';
import { projectEvent, type NewEvent } from '../../collections/event-rules.js';
import { eventRow, type Ledger } from '../../collections/ledger.js';
import { eventsOfReference, type ChainedEvent } from '../events.js';
import { eventHash } from '../chain.js';
import type { EventVerifier } from '../evidence.js';
import { fromTeamEvent, intentFromTeamEvent } from '../record.js';

/** The kind an event was given (the projection stores a changed answer as 'final_status_changed'). */
function givenKind(stored: string): string {
  return stored === 'final_status_changed' ? 'outcome' : stored;
}

/** Whether the stored event holds what the record's copy makes of it (its kind as the fold gave it aside). */
function sameEvent(s: CollectionEventRow, e: NewEvent): boolean {
  return (
    s.collection_id === e.collectionId &&
    s.merchant_reference === e.merchantReference &&
    s.internal_reference === (e.internalReference ?? null) &&
    s.source === e.source &&
    givenKind(s.kind) === givenKind(e.kind) &&
    s.status === (e.status ?? null) &&
    s.received_at === e.receivedAt &&
    s.signature === e.signature &&
    s.amount_minor === (e.amountMinor ?? null) &&
    s.currency === (e.currency ?? null) &&
    s.payload === (e.payload ?? null) &&
    s.note === (e.note ?? null) &&
    s.actor === (e.actor ?? null)
  );
}

/**
 * A pulled event this desk already held (inside the apply's transaction): marks its reference to be
 * folded again when the stored copy differs from the record's, or when an event the desk applied from the
 * record since is stored after it (the record placed that one first). This desk's own events still in
 * its outbox come back later, in the order sent: they do not count.
 */
export function noteComeback(db: Db, pulled: NewEvent, now: number): void {
  if (!pulled.dedupeKey) return;
  const stored = storedEventByKey(db, pulled.dedupeKey);
  if (!stored) return;
  if (!sameEvent(stored, pulled) || hasPulledEventAfter(db, stored.merchant_reference, stored.id))
    markRefold(db, stored.merchant_reference, now);
}

/** The fold's input for one of this desk's own events the record does not have (yet). */
function ownEvent(r: LocalEventRow): NewEvent {
  return {
    collectionId: r.collection_id,
    merchantReference: r.merchant_reference,
    internalReference: r.internal_reference,
    source: r.source as NewEvent['source'],
    kind: givenKind(r.kind) as NewEvent['kind'],
    status: r.status,
    receivedAt: r.received_at,
    signature: r.signature as NewEvent['signature'],
    amountMinor: r.amount_minor,
    currency: r.currency,
    dedupeKey: r.dedupe_key,
    payload: r.payload,
    note: r.note,
    actor: r.actor,
    paymentUrl: r.outbox_payment_url,
    statusMessage: r.outbox_status_message,
  };
}

/**
 * Folds `reference` again from the record's events `record` (seq order, read before this transaction),
 * in one write transaction. Returns the collection's id, or null for an orphan's reference.
 */
function refoldReference(
  ledger: Pick<Ledger, 'afterRewrite'>,
  db: Db,
  reference: string,
  record: readonly ChainedEvent[],
  verify: EventVerifier | undefined,
): number | null {
  return writeTransaction(db, () => {
    const collectionId = collectionIdOf(db, reference) ?? null;
    const local = localEventsOf(db, reference);
    const inRecord = new Set(record.map((e) => e.eventKey));
    const folded: { ev: NewEvent; inFold: boolean }[] = [];
    let intentTev: ChainedEvent | null = null;
    for (const tev of record) {
      if (tev.source === 'intent') intentTev ??= tev;
      folded.push({ ev: { ...fromTeamEvent(tev, verify), collectionId }, inFold: true });
    }
    // This desk's own events the record does not have yet, in the order stored; a refused one stays on the
    // desk (its timeline says so) but is not folded.
    for (const r of local)
      if (r.dedupe_key === null || !inRecord.has(r.dedupe_key))
        folded.push({ ev: ownEvent(r), inFold: r.outbox_state !== 'refused' });

    let kinds: string[];
    let projection = null;
    if (collectionId !== null) {
      const intent = intentTev ? intentFromTeamEvent(intentTev) : null;
      if (intent) writeIntentColumns(db, collectionId, intent);
      const basis = foldBasis(db, collectionId)!;
      const p = intentProjection(basis.created_at, basis.amount_minor, basis.currency);
      kinds = folded.map(({ ev, inFold }) => {
        if (!inFold) return ev.kind;
        const r = projectEvent(p, ev);
        Object.assign(p, r.next);
        return r.kind;
      });
      projection = p;
    } else kinds = folded.map(({ ev }) => ev.kind);

    const ids = rewriteEventsOf(
      db,
      reference,
      folded.map(({ ev }, i) => eventRow(ev, kinds[i]!)),
    );
    if (collectionId !== null && projection) {
      let last: number | null = null;
      folded.forEach((f, i) => {
        if (f.inFold) last = ids[i]!;
      });
      writeProjection(db, collectionId, { ...projection, last_event_id: last });
      ledger.afterRewrite(db, collectionId);
    }
    clearRefold(db, reference);
    return collectionId;
  });
}

export interface RefoldOptions {
  pool: pg.Pool;
  db: Db;
  /** Runs what every append runs (its reconciliation) for each collection folded again. */
  ledger: Pick<Ledger, 'afterRewrite'>;
  /** The desk's own check of each signed event (as the pull applies them). */
  verify: EventVerifier | undefined;
  /** The last seq this desk applied: the record is read up to there (later events come through the pull). */
  uptoSeq: number;
  /** References per call (the rest wait for the next pull). */
  limit?: number;
}

/** The record's events of `reference`, each checked against its own hash (a row changed since is refused). */
async function recordOf(pool: pg.Pool, reference: string, uptoSeq: number): Promise<ChainedEvent[]> {
  const events = await eventsOfReference(pool, reference, uptoSeq);
  for (const e of events)
    if (!eventHash(e.prevHash, e).equals(e.hash))
      throw new Error(`seq ${e.seq} of ${reference} does not match its hash: the record was altered; not folded`);
  return events;
}

/** What one call folded: the collections' ids (for the screens), and the references it could not fold. */
export interface Refolded {
  ids: number[];
  failed: { reference: string; error: unknown }[];
}

/**
 * Folds the marked references again. One that cannot be folded (its record altered, a read that failed)
 * stays marked and is tried again on the next pull; it does not hold back the others, nor the rest of
 * the pull: the caller reports it once that is done.
 */
export async function refoldMarked(o: RefoldOptions): Promise<Refolded> {
  const out: Refolded = { ids: [], failed: [] };
  for (const reference of refoldQueue(o.db, o.limit ?? 200)) {
    try {
      const record = await recordOf(o.pool, reference, o.uptoSeq);
      const id = refoldReference(o.ledger, o.db, reference, record, o.verify);
      if (id !== null) out.ids.push(id);
    } catch (error) {
      out.failed.push({ reference, error });
    }
  }
  return out;
}
