// The team database this desktop's copy was applied from (team migration 6's team.workspace id), set
// by the first sync. The sync refuses a database with another id: its seqs are not this copy's.
export const sql = `
CREATE TABLE team_workspace (
  id TEXT PRIMARY KEY,
  first_synced_at INTEGER NOT NULL
);
`;
