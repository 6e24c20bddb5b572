// Full reconciliation as one set-based pass (main/store/sqlite/reconcile/full-pass-sql.ts): an index of each event's
// classification code (the text of eventCodeSql('') there, written out so this migration never changes)
// with the columns that pass reads, so it reads this index alone, in collection order. It starts with
// (collection_id, id), so it replaces collection_events_collection for the per-collection reads. A
// partial index finds the rare callbacks whose amount is only in the payload (PAYLOAD_ONLY_AMOUNT).
// test/reconcile/full.test.ts checks that the planner uses both.
export const sql = `
CREATE INDEX collection_events_reconcile ON collection_events (collection_id, id,
  (CASE
    WHEN kind = 'resolution' THEN 256
    WHEN source = 'security' OR kind = 'bad_signature'
      OR (source IN ('redirect', 'callback', 'import') AND signature IN ('invalid', 'missing')) THEN 512
    WHEN source = 'initiate' THEN 768 + CASE kind WHEN 'initialize_accepted' THEN 1 WHEN 'initialize_exists' THEN 2 WHEN 'initialize_unknown' THEN 3 WHEN 'initialize_rejected' THEN 4 ELSE 0 END
    WHEN kind IN ('outcome', 'final_status_changed', 'manual_status') AND status IN ('COMPLETED', 'FAILED', 'CANCELLED')
      THEN CASE source WHEN 'manual' THEN 1024 WHEN 'redirect' THEN 1280 WHEN 'callback' THEN 1536 WHEN 'import' THEN 1792 ELSE 0 END
    ELSE 0 END + CASE WHEN status IS NULL THEN 0 WHEN status = 'PENDING' THEN 16 WHEN status = 'REJECTED' THEN 32 WHEN status = 'UNKNOWN' THEN 48 WHEN status = 'COMPLETED' THEN 64 WHEN status = 'FAILED' THEN 80 WHEN status = 'CANCELLED' THEN 96 WHEN status = 'INTENT' THEN 112 ELSE 240 END),
  received_at, amount_minor, currency);
DROP INDEX collection_events_collection;
CREATE INDEX collection_events_payload_amount ON collection_events (collection_id) WHERE source IN ('callback', 'import') AND amount_minor IS NULL AND payload IS NOT NULL;
`;
