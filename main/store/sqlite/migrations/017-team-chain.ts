// The head of the team events' hash chain this desk has verified (team/chain.ts): the seq of the last
// event it checked and that event's hash. A later check of the record must arrive at the same hash at
// that seq; a row rewritten, removed or reordered before it, even with every later hash recomputed,
// does not. One row (and the marks below); written after each applied batch (a crash between the two only makes the next
// pull check again the events in between, see team/sync/chain-check.ts).
export const sql = `
CREATE TABLE team_chain (
  one_row INTEGER PRIMARY KEY CHECK (one_row = 1),
  seq INTEGER NOT NULL CHECK (seq >= 0),
  hash BLOB NOT NULL CHECK (length(hash) = 32),
  updated_at INTEGER NOT NULL
);
-- The hash of the first event of each block of seqs it verified (team/chain.ts MARK_EVERY): a re-check
-- that finds the head changed names the first block whose mark no longer matches.
CREATE TABLE team_chain_marks (
  seq INTEGER PRIMARY KEY,
  hash BLOB NOT NULL CHECK (length(hash) = 32)
);
`;
