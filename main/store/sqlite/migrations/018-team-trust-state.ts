// Two states of a team desk's trust checks that must outlive a restart.
//
// The hash chain's alarm (team/sync/chain-check.ts), kept so a restart shows it at once: a desk that
// found the record altered says so from its first screen, before (and even without) its next check,
// until a check finds the record matching again. One row per way it was found: a pull whose events do
// not continue the verified chain, or a re-check of what the desk holds; each clears only its own.
export const sql = `
CREATE TABLE team_chain_alarm (
  found_by TEXT PRIMARY KEY CHECK (found_by IN ('pull', 'recheck')),
  seq INTEGER NOT NULL CHECK (seq >= 0),
  reason TEXT NOT NULL CHECK (length(reason) > 0),
  found_at INTEGER NOT NULL
);

-- A new desk's re-check of the signatures it took from a snapshot before checking them itself
-- (team/sync/signature-check.ts). The snapshot's events are ids 1..upto_event_id, in seq order up to
-- upto_seq; those up to checked_event_id (checked_seq) are re-checked. A signed event (callback,
-- import, redirect) with an id above checked_event_id and at most upto_event_id is "signature being
-- checked", and so is its collection. The row goes once the check and the reconciliation after it
-- are done; at most one row.
CREATE TABLE team_signature_check (
  one_row INTEGER PRIMARY KEY CHECK (one_row = 1),
  upto_event_id INTEGER NOT NULL CHECK (upto_event_id >= 0),
  upto_seq INTEGER NOT NULL CHECK (upto_seq >= 0),
  signed_total INTEGER NOT NULL CHECK (signed_total >= 0),
  checked_event_id INTEGER NOT NULL DEFAULT 0 CHECK (checked_event_id >= 0 AND checked_event_id <= upto_event_id),
  checked_seq INTEGER NOT NULL DEFAULT 0 CHECK (checked_seq >= 0),
  checked_signed INTEGER NOT NULL DEFAULT 0 CHECK (checked_signed >= 0),
  failed INTEGER NOT NULL DEFAULT 0 CHECK (failed >= 0),
  started_at INTEGER NOT NULL
);
`;
