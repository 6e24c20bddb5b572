// Unverified or refused callback deliveries are counted, not stored: one row per hour, reason and source,
// with at most a few short samples (main/callbacks/security-log.ts). A flood of bad requests updates a
// row's count instead of adding rows. Old 'security' rows in collection_events stay as they are (readable
// in the audit); nothing writes new ones for callbacks.
export const sql = `
CREATE TABLE callback_security_log (
  bucket_start INTEGER NOT NULL,   -- ms, start of the hour (UTC)
  reason TEXT NOT NULL,            -- bad_signature | missing_signature | malformed | too_large | rate_limited | ...
  source TEXT NOT NULL,            -- remote address, 'import', or 'other' past the per-bucket source cap
  count INTEGER NOT NULL,
  first_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  samples TEXT NOT NULL DEFAULT '[]', -- JSON array of at most 3 strings of at most 512 bytes
  PRIMARY KEY (bucket_start, reason, source)
) WITHOUT ROWID;
`;
