// The team's order of a desk's events (store migration 19): each event's team seq, kept beside the
// append-only collection_events, and the one way the queries sort by it. First the events the desk
// held before migration 19 (by id), then those with a seq (by seq), last those whose seq is not known
// yet (the desk's own, not pulled back; by id). On a solo desk that is id order.
import type { Db, ReadDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';

/**
 * Records the team seq of stored event `eventId` and when the database recorded it. Returns 1 when it
 * is new, 0 when the event's seq was known already (the same seq: an event has one).
 */
export function recordEventSeq(db: Db, eventId: number, seq: number, recordedAt: number): number {
  return statement(db, 'INSERT OR IGNORE INTO team_event_seq (event_id, seq, recorded_at) VALUES (?, ?, ?)').run(
    eventId,
    seq,
    recordedAt,
  ).changes;
}

/** The team seq of stored event `eventId`, or undefined while it is not known. */
export function eventSeqOf(db: ReadDb, eventId: number): number | undefined {
  return readStatement(db, 'SELECT seq FROM team_event_seq WHERE event_id = ?', 'pluck').get(eventId) as
    number | undefined;
}

/**
 * The ORDER BY terms of the team order, for events aliased `e` joined to `LEFT JOIN team_event_seq s ON
 * s.event_id = e.id` (TEAM_SEQ_JOIN). `desc`: newest first.
 */
export function teamOrder(e: string, s: string, desc = false): string {
  const dir = desc ? ' DESC' : '';
  return (
    `CASE WHEN ${s}.seq IS NOT NULL THEN 1 WHEN ${e}.id <= (SELECT legacy_upto_event_id FROM team_event_order) THEN 0 ELSE 2 END${dir}, ` +
    `COALESCE(${s}.seq, ${e}.id)${dir}`
  );
}

/** The join teamOrder reads (events aliased `e`, their seq row `s`). */
export function teamSeqJoin(e: string, s: string): string {
  return `LEFT JOIN team_event_seq ${s} ON ${s}.event_id = ${e}.id`;
}
