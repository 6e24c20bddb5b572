// Full reconciliation reads what each event adds to its collection's aggregates straight from an index:
// the per-event terms of main/store/sqlite/reconcile/full-pass-sql.ts (reconcileIndexSql() there, written out here so this
// migration never changes; test/reconcile/full.test.ts checks that the two agree), so the full recompute
// sums and maxes index columns instead of evaluating a tree of CASEs on an event code per event. It starts
// with (collection_id, id) like migration 008's index, which it replaces, so the per-collection reads use
// it too. Its lists of values are written as comparisons: SQLite evaluates a constant IN list of three or
// more values in an index expression through a temporary table per row, which made building the index
// (and every insert into it) several times slower.
export const sql = `
CREATE INDEX collection_events_reconcile_terms ON collection_events (collection_id, id,
  (CASE CASE
    WHEN kind = 'resolution' THEN 1
    WHEN source = 'security' OR kind = 'bad_signature'
      OR ((signature = 'invalid' OR signature = 'missing') AND (source = 'redirect' OR source = 'callback' OR source = 'import')) THEN 2
    WHEN source = 'initiate' THEN 3
    WHEN (kind = 'outcome' OR kind = 'final_status_changed' OR kind = 'manual_status') AND (status = 'COMPLETED' OR status = 'FAILED' OR status = 'CANCELLED')
      THEN CASE source WHEN 'manual' THEN 4 WHEN 'redirect' THEN 5 WHEN 'callback' THEN 6 WHEN 'import' THEN 7 ELSE 0 END
    ELSE 0 END WHEN 1 THEN 1 WHEN 2 THEN 16 WHEN 3 THEN 256
    WHEN 5 THEN 4096 * CASE status WHEN 'COMPLETED' THEN 1 WHEN 'FAILED' THEN 16 ELSE 256 END WHEN 6 THEN 16777216 * CASE status WHEN 'COMPLETED' THEN 1 WHEN 'FAILED' THEN 16 ELSE 256 END WHEN 7 THEN 68719476736 * CASE status WHEN 'COMPLETED' THEN 1 WHEN 'FAILED' THEN 16 ELSE 256 END
    ELSE 0 END),
  (CASE CASE
    WHEN kind = 'resolution' THEN 1
    WHEN source = 'security' OR kind = 'bad_signature'
      OR ((signature = 'invalid' OR signature = 'missing') AND (source = 'redirect' OR source = 'callback' OR source = 'import')) THEN 2
    WHEN source = 'initiate' THEN 3
    WHEN (kind = 'outcome' OR kind = 'final_status_changed' OR kind = 'manual_status') AND (status = 'COMPLETED' OR status = 'FAILED' OR status = 'CANCELLED')
      THEN CASE source WHEN 'manual' THEN 4 WHEN 'redirect' THEN 5 WHEN 'callback' THEN 6 WHEN 'import' THEN 7 ELSE 0 END
    ELSE 0 END WHEN 3 THEN CASE kind WHEN 'initialize_accepted' THEN 1 WHEN 'initialize_exists' THEN 2 WHEN 'initialize_unknown' THEN 3 WHEN 'initialize_rejected' THEN 4 ELSE 0 END * 4096 + (CASE WHEN status IS NULL THEN 0 WHEN status = 'PENDING' THEN 1 WHEN status = 'REJECTED' THEN 2 WHEN status = 'UNKNOWN' THEN 3 WHEN status = 'COMPLETED' THEN 4 WHEN status = 'FAILED' THEN 5 WHEN status = 'CANCELLED' THEN 6 WHEN status = 'INTENT' THEN 7 ELSE 15 END) * 65536
    WHEN 4 THEN 1 * CASE status WHEN 'COMPLETED' THEN 1 WHEN 'FAILED' THEN 16 ELSE 256 END ELSE 0 END + 1048576),
  (CASE CASE
    WHEN kind = 'resolution' THEN 1
    WHEN source = 'security' OR kind = 'bad_signature'
      OR ((signature = 'invalid' OR signature = 'missing') AND (source = 'redirect' OR source = 'callback' OR source = 'import')) THEN 2
    WHEN source = 'initiate' THEN 3
    WHEN (kind = 'outcome' OR kind = 'final_status_changed' OR kind = 'manual_status') AND (status = 'COMPLETED' OR status = 'FAILED' OR status = 'CANCELLED')
      THEN CASE source WHEN 'manual' THEN 4 WHEN 'redirect' THEN 5 WHEN 'callback' THEN 6 WHEN 'import' THEN 7 ELSE 0 END
    ELSE 0 END WHEN 3 THEN received_at WHEN 6 THEN CASE WHEN status = 'COMPLETED' THEN 1125899906842624 - received_at END
    WHEN 7 THEN CASE WHEN status = 'COMPLETED' THEN 1125899906842624 - received_at END END),
  (CASE WHEN CASE
    WHEN kind = 'resolution' THEN 1
    WHEN source = 'security' OR kind = 'bad_signature'
      OR ((signature = 'invalid' OR signature = 'missing') AND (source = 'redirect' OR source = 'callback' OR source = 'import')) THEN 2
    WHEN source = 'initiate' THEN 3
    WHEN (kind = 'outcome' OR kind = 'final_status_changed' OR kind = 'manual_status') AND (status = 'COMPLETED' OR status = 'FAILED' OR status = 'CANCELLED')
      THEN CASE source WHEN 'manual' THEN 4 WHEN 'redirect' THEN 5 WHEN 'callback' THEN 6 WHEN 'import' THEN 7 ELSE 0 END
    ELSE 0 END = 6 THEN id * 4 + CASE status WHEN 'COMPLETED' THEN 0 WHEN 'FAILED' THEN 1 ELSE 2 END END),
  (CASE WHEN CASE
    WHEN kind = 'resolution' THEN 1
    WHEN source = 'security' OR kind = 'bad_signature'
      OR ((signature = 'invalid' OR signature = 'missing') AND (source = 'redirect' OR source = 'callback' OR source = 'import')) THEN 2
    WHEN source = 'initiate' THEN 3
    WHEN (kind = 'outcome' OR kind = 'final_status_changed' OR kind = 'manual_status') AND (status = 'COMPLETED' OR status = 'FAILED' OR status = 'CANCELLED')
      THEN CASE source WHEN 'manual' THEN 4 WHEN 'redirect' THEN 5 WHEN 'callback' THEN 6 WHEN 'import' THEN 7 ELSE 0 END
    ELSE 0 END >= 6 THEN currency END),
  (CASE WHEN CASE
    WHEN kind = 'resolution' THEN 1
    WHEN source = 'security' OR kind = 'bad_signature'
      OR ((signature = 'invalid' OR signature = 'missing') AND (source = 'redirect' OR source = 'callback' OR source = 'import')) THEN 2
    WHEN source = 'initiate' THEN 3
    WHEN (kind = 'outcome' OR kind = 'final_status_changed' OR kind = 'manual_status') AND (status = 'COMPLETED' OR status = 'FAILED' OR status = 'CANCELLED')
      THEN CASE source WHEN 'manual' THEN 4 WHEN 'redirect' THEN 5 WHEN 'callback' THEN 6 WHEN 'import' THEN 7 ELSE 0 END
    ELSE 0 END >= 6 THEN amount_minor END));
DROP INDEX collection_events_reconcile;
`;
