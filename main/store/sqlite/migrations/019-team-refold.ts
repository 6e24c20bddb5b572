// The references a team desk must fold again from the team record (team/sync/refold.ts): this desk stored
// one of their events before the record had it (its own charge events, a resolution or an import recorded
// there first), and the record then placed it after events the desk applied later, or keeps it with other
// values (its seq, the database's actor and time). Written in the transaction that finds it, so a crash
// before the refold still refolds at the next pull.
export const sql = `
CREATE TABLE team_refold (
  merchant_reference TEXT PRIMARY KEY,
  marked_at INTEGER NOT NULL
) WITHOUT ROWID;
`;
