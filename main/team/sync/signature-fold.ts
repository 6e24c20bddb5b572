// The signature re-check's corrections (signature-check.ts), only when a verdict a snapshot stored is not
// this desk's: the collection's events read again from the record, and the collection folded again with
// this desk's verdicts.
import type { Db } from '../../store/sqlite/connection.js';
import type pg from 'pg';
import {
  collectionEventKeys,
  foldBasis,
  type FoldBasisRow,
  type Refolded,
} from '../../store/sqlite/team/event-verdicts.js';
import { intentProjection } from '../../store/sqlite/team/collection-projection.js';
import { projectEvent, type Projected } from '../../collections/event-rules.js';
import { translatePgError } from '../errors.js';
import { pullPageRaw, type TeamEvent } from '../events.js';
import { eventSeqsOfReference } from '../../store/pg/events.js';
import type { EventVerifier } from '../evidence.js';
import { queryableLogin } from '../pool.js';
import { fromTeamEvent } from '../record.js';

/** A collection and the record's events of its reference, read to fold it again. */
export interface Fetched {
  id: number;
  collection: FoldBasisRow;
  events: Map<string, TeamEvent>;
}

export async function fetchRecord(o: { db: Db; pool: pg.Pool }, id: number): Promise<Fetched | null> {
  const { db, pool } = o;
  const c = foldBasis(db, id);
  if (!c) return null;
  let seqs: number[];
  try {
    seqs = (await eventSeqsOfReference(pool, c.merchant_reference)).map(Number);
  } catch (e) {
    throw translatePgError(e, 'read the events of a collection again', queryableLogin(pool));
  }
  const events = new Map<string, TeamEvent>();
  for (const seq of seqs) for (const e of (await pullPageRaw(pool, seq - 1, 1, seq)).events) events.set(e.eventKey, e);
  return { id, collection: c, events };
}

/**
 * Folds a collection again, in the order this desk stored its events, from the record's events with this
 * desk's own verdicts, as the replay would (bulk.ts). Inside the transaction that writes the result, so
 * no event applied meanwhile is left out; one the record did not have when read (applied since, or this
 * desk's own not yet sent) stops the check, which reads again at the next pull.
 */
export function foldAgain(db: Db, f: Fetched, verify: EventVerifier): Refolded {
  const local = collectionEventKeys(db, f.id);
  const p = intentProjection(f.collection.created_at, f.collection.amount_minor, f.collection.currency);
  const events: Refolded['events'] = [];
  for (const { id: eventId, dedupe_key } of local) {
    const tev = dedupe_key === null ? undefined : f.events.get(dedupe_key);
    if (!tev)
      throw new Error(
        `collection ${f.id} has an event the team record did not have when it was read again (${dedupe_key ?? 'no key'}); the check reads it again`,
      );
    const ev = fromTeamEvent(tev, verify);
    const r: Projected = projectEvent(p, ev);
    // What the replay would store for it (bulk-chunk.ts eventValues): its kind, signature and note.
    events.push({ id: eventId, kind: r.kind, signature: ev.signature, note: ev.note ?? null });
    Object.assign(p, r.next);
    p.last_event_id = eventId;
  }
  return { id: f.id, events, projection: p };
}
