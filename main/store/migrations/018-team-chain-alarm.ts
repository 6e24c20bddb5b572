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
`;
