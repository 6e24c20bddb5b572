// Indexes for reading the cache in constant time as history grows.
// The latest snapshot of each wallet, kept beside the append-only balance_snapshots so reading the
// current balances does not scan the whole history (it grows by up to one row per wallet per poll).
// A projection, updated in the same transaction as the snapshot it points at.
export const sql = `
CREATE TABLE balance_wallets (
  currency TEXT NOT NULL,
  wallet_type TEXT NOT NULL,
  last_snapshot_id INTEGER NOT NULL REFERENCES balance_snapshots (id),
  PRIMARY KEY (currency, wallet_type)
);
INSERT INTO balance_wallets (currency, wallet_type, last_snapshot_id)
  SELECT currency, wallet_type, MAX(id) FROM balance_snapshots GROUP BY currency, wallet_type;

-- "The last run" and "the last successful run" of a kind, without sorting the whole poll log.
CREATE INDEX poll_runs_kind_outcome_id ON poll_runs (kind, outcome, id);
CREATE INDEX poll_runs_kind_id ON poll_runs (kind, id);
`;
