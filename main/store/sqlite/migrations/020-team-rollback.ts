// A team desk as a witness of the record (issue 29): when the team database goes back in time (an
// asynchronous failover, a restore from backup), the desk tells it from tampering, puts back what it
// holds, and re-bases on the record as it is now (team/sync/rollback.ts).
//
// team_witness: the events this desk applied from its pulls, by seq, for a horizon (default 14 days,
// pruned): each one's key and hash (the points of the chain it verified, so the last point the record
// still shares with it is found exactly, not only to the block of its marks), and, for an event it could
// put back (signed by the service, or written by this desk's login), the event as the record held it,
// evidence included (collection_events keeps neither evidence nor the writer's columns).
//
// team_rollback: what the desk found and did, the last time the record went back: the seqs it lost, the
// head this desk had verified (kept as evidence), whether it still restores or has re-based, and counts.
//
// team_lost_events: events this desk held that the record lost and that it could neither prove nor
// send again (another desk's unsigned word): kept whole and listed by reference and seq, never dropped;
// an entry goes when the event is back in this desk's copy (another witness restored it).
export const sql = `
CREATE TABLE team_witness (
  seq INTEGER PRIMARY KEY,
  event_key TEXT NOT NULL,
  hash BLOB NOT NULL CHECK (length(hash) = 32),
  event TEXT,
  applied_at INTEGER NOT NULL
);
-- No index but the seq: one is written per event pulled; the hourly prune scans it (days of events).

CREATE TABLE team_rollback (
  one_row INTEGER PRIMARY KEY CHECK (one_row = 1),
  found_at INTEGER NOT NULL,
  common_seq INTEGER NOT NULL CHECK (common_seq >= 0),
  lost_from INTEGER NOT NULL,
  lost_to INTEGER NOT NULL,
  old_head_seq INTEGER NOT NULL,
  old_head_hash BLOB NOT NULL CHECK (length(old_head_hash) = 32),
  phase TEXT NOT NULL CHECK (phase IN ('restoring', 'rebased')),
  restored INTEGER NOT NULL DEFAULT 0,
  present INTEGER NOT NULL DEFAULT 0,
  rebased_at INTEGER,
  rebased_seq INTEGER
);

CREATE TABLE team_lost_events (
  event_key TEXT PRIMARY KEY,
  seq INTEGER,
  merchant_reference TEXT NOT NULL,
  source TEXT NOT NULL,
  kind TEXT NOT NULL,
  status TEXT,
  reason TEXT NOT NULL,
  event TEXT NOT NULL,
  found_at INTEGER NOT NULL
);
`;
