// A desk is a witness of the team record (issue 29): besides applying what it pulls, it keeps, for a
// horizon (default 14 days), each pulled event's seq, key and hash, and the event itself as the record
// held it when this desk could put it back were the record to lose it: a signed event (its evidence
// proves it to any desk) or one written by this desk's own login (its word, as before). A record that
// went back in time (an asynchronous failover, a restore from backup) is then found to the event, and
// what it lost is put back by the desks that held it (rollback.ts). collection_events keeps neither the
// evidence nor the writer's own columns (its kind, note and verdict are this desk's), hence this journal.
//
// Written in the transaction that applies the pulled batch (apply.ts), so the journal never claims what
// the copy does not hold, nor the reverse. Its cost is one small insert per event (a JSON text only for the events
// this desk could put back).
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { pruneWitnessed, type WitnessRow } from '../../store/sqlite/team/rollback.js';
import type { ChainedEvent, TeamEvent } from '../events.js';
import { SIGNED_SOURCES } from '../evidence.js';

/** How long a desk keeps what it witnessed, by default: as long as serve keeps its journal. */
export const WITNESS_DAYS = 14;

/** Whether this desk could put `e` back: the service signed it (and its evidence is kept), or its login wrote it. */
function canPutBack(e: Pick<TeamEvent, 'source' | 'evidence' | 'actor'>, login: string | null): boolean {
  return (SIGNED_SOURCES.has(e.source) && e.evidence !== null) || (login !== null && e.actor === login);
}

/**
 * The team event as the record held it, for the journal (its chain columns are kept beside it). The
 * payload of any event but an intent is the one this desk's collection_events row keeps (record.ts
 * fromTeamEvent), so it is not kept twice: a callback's body is most of its size.
 */
function witnessedEvent(e: ChainedEvent): string {
  const { prevHash: _prev, hash: _hash, payload, ...event } = e;
  return JSON.stringify(e.source === 'intent' ? { ...event, payload } : { ...event, payloadHeld: true });
}

export function witnessRows(events: readonly ChainedEvent[], login: string | null): WitnessRow[] {
  return events.map((e) => ({
    seq: e.seq,
    event_key: e.eventKey,
    hash: e.hash,
    event: canPutBack(e, login) ? witnessedEvent(e) : null,
  }));
}

/** Forgets what was witnessed longer ago than the horizon; returns how many rows went. */
export function pruneWitness(db: Db, now: number, days = WITNESS_DAYS): number {
  return writeTransaction(db, () => pruneWitnessed(db, now - days * 86_400_000));
}

/**
 * A journalled event read back, its payload from the row this desk holds (`heldPayload`) when the journal
 * left it there; null when the text is not one, or its payload is not held any more.
 */
export function parseWitnessed(
  text: string | null,
  heldPayload: (key: string) => string | null | undefined,
): TeamEvent | null {
  if (!text) return null;
  try {
    const { payloadHeld, ...e } = JSON.parse(text) as TeamEvent & { payloadHeld?: boolean };
    if (!payloadHeld) return e;
    const payload = heldPayload(e.eventKey);
    return payload === undefined ? null : { ...e, payload };
  } catch {
    return null;
  }
}
