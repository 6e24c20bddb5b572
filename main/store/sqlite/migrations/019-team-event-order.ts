// The team's order of a desk's events (issue 28). "Latest" and order come from the team record's seq,
// never a local id: a desk stores its own events (its charge's answers, a person's resolution) before
// it pulls them back, so two desks give the same events different ids, and a "latest resolution" by
// local id was each desk's own, not the team's. collection_events stays append-only, so the seq sits
// beside it:
//
// - team_event_seq: the team seq of a stored event, with the time the database recorded it, written
//   when the event is applied from a pull, copied in a new desk's start, recorded team-first (a
//   resolution: the insert answers its seq), or pulled back (the desk's own). A solo desk has none.
// - team_event_order: the highest event id this desk held before this migration. Those events have no
//   seq here (the desk cannot know them without reading the whole record again); they keep their
//   local order and come before every event with a seq, which were all pulled after them.
//
// An event's place in the team order (store/sqlite/team/event-order.ts says it once for the queries):
// first the events held before this migration, by id; then the events with a seq, by seq; last the
// events whose seq is not known yet (the desk's own, not pulled back: the record will give them a
// seq above everything the desk has pulled), by id. On a solo desk that is id order, as before.
//
// The orphans view follows it: a resolution covers the callbacks of its reference that come before
// it in that order.
export const sql = `
CREATE TABLE team_event_seq (
  event_id INTEGER PRIMARY KEY REFERENCES collection_events (id),
  seq INTEGER NOT NULL CHECK (seq > 0),
  recorded_at INTEGER NOT NULL
);

CREATE TABLE team_event_order (
  one_row INTEGER PRIMARY KEY CHECK (one_row = 1),
  legacy_upto_event_id INTEGER NOT NULL CHECK (legacy_upto_event_id >= 0)
);
INSERT INTO team_event_order (one_row, legacy_upto_event_id) SELECT 1, COALESCE(MAX(id), 0) FROM collection_events;

-- Each event's place in the team order as one number: events held before this migration (their id),
-- then events with a seq (2^50 + seq), then events with none yet (2^51 + id).
CREATE VIEW team_event_rank AS
SELECT e.id AS event_id,
       CASE WHEN s.seq IS NOT NULL THEN 1125899906842624 + s.seq
            WHEN e.id <= o.legacy_upto_event_id THEN e.id
            ELSE 2251799813685248 + e.id END AS rank
FROM collection_events e CROSS JOIN team_event_order o LEFT JOIN team_event_seq s ON s.event_id = e.id;

DROP VIEW reconciliation_orphans;
CREATE VIEW reconciliation_orphans AS
SELECT e.id AS event_id, e.merchant_reference, e.internal_reference, e.source, e.kind, e.status,
       e.received_at, e.signature, e.amount_minor, e.currency,
       (SELECT r.id FROM collection_events r JOIN team_event_rank rr ON rr.event_id = r.id
         WHERE r.collection_id IS NULL AND r.kind = 'resolution' AND r.merchant_reference = e.merchant_reference
           AND rr.rank > (SELECT er.rank FROM team_event_rank er WHERE er.event_id = e.id)
         ORDER BY rr.rank DESC LIMIT 1) AS resolved_by_event_id
FROM collection_events e
WHERE e.collection_id IS NULL AND e.kind <> 'resolution';
`;
