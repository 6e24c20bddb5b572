// How far this desktop has applied the team record, per stream (each PostgreSQL table has its own seq).
// Written in the same transaction as the rows it covers, so a crash never skips nor repeats a batch.
export const sql = `
CREATE TABLE team_sync (
  stream TEXT PRIMARY KEY CHECK (stream IN ('events', 'balance_snapshots', 'payment_option_lists')),
  last_seq INTEGER NOT NULL CHECK (last_seq >= 0),
  updated_at INTEGER NOT NULL
);
`;
