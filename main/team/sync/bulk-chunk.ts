// One chunk of a bulk start's copy (bulk.ts), in one transaction: collections from intents, the events as
// the copy inserts them, then each touched collection's projection once.
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { insertCopiedEvent } from '../../store/sqlite/team/bulk-copy.js';
import {
  storedProjection,
  writeProjection,
  type CollectionProjectionRow,
} from '../../store/sqlite/team/collection-projection.js';
import { projectEvent, type NewEvent, type Projected } from '../../collections/event-rules.js';
import { collectionIdByReference, insertIntentCollection } from '../../collections/intent-row.js';
import type { TeamEvent } from '../events.js';
import type { EventVerifier } from '../evidence.js';
import { fromTeamEvent, intentFromTeamEvent } from '../record.js';

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

/**
 * One chunk in one transaction: collections from intents, events, then each touched row's projection
 * once. Returns how many events it stored.
 */
export function copyChunk(
  db: Db,
  ids: Map<string, number>,
  events: readonly TeamEvent[],
  verify: EventVerifier | undefined,
): number {
  const lookup = collectionIdByReference(db);
  const fresh = new Map<string, number>();
  const stored = writeTransaction(db, () => {
    const touched = new Map<number, CollectionProjectionRow>();
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
      // the ledger's projection rules, applied to the row in memory once the event is stored.
      let p: CollectionProjectionRow | undefined;
      let r: Projected | undefined;
      if (id !== undefined) {
        p = touched.get(id) ?? storedProjection(db, id)!;
        r = projectEvent(p, ev);
      }
      const kind = r ? r.kind : ev.kind;
      const info = insertCopiedEvent(db, eventValues(id ?? null, ev, kind));
      // Not stored: this desktop already had it (its own write, e.g. a charge saved during the copy), as
      // the ledger's dedupe would find; the row keeps the projection it had.
      n += info.changes;
      if (p && r && info.changes > 0) {
        Object.assign(p, r.next);
        p.last_event_id = Number(info.lastInsertRowid);
        touched.set(id!, p);
      }
    }
    for (const [id, p] of touched) writeProjection(db, id, p);
    return n;
  });
  // Only once committed: a chunk rolled back gave no ids.
  for (const [ref, id] of fresh) ids.set(ref, id);
  return stored;
}
