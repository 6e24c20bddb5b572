// Reconciliation results (a projection recomputed from collection_events; never the source of truth)
// and the high-water mark of incremental reconciliation. Times are ms since the epoch.
export const sql = `
CREATE TABLE reconciliation (
  collection_id INTEGER PRIMARY KEY REFERENCES collections (id),
  outcome TEXT NOT NULL,              -- the primary kind (most serious first)
  kinds TEXT NOT NULL,                -- JSON array of every kind that applies
  open_kinds TEXT NOT NULL,           -- JSON array of exception kinds not covered by a later resolution
  is_exception INTEGER NOT NULL,      -- 1 while open_kinds is not empty
  last_event_id INTEGER,
  computed_at INTEGER NOT NULL,
  stale_at INTEGER,                   -- when a pending collection becomes stale_pending (NULL otherwise)
  resolved_by_event_id INTEGER,       -- the latest resolution event, when one exists
  resolution_note TEXT,
  initiate_status TEXT,               -- what each source says (latest, verified only for signed sources)
  redirect_status TEXT,
  callback_status TEXT,
  import_status TEXT,
  manual_status TEXT,
  completed_at INTEGER                -- first verified COMPLETED from the callback side
);
CREATE INDEX reconciliation_exception ON reconciliation (is_exception, outcome);
CREATE INDEX reconciliation_outcome ON reconciliation (outcome);
CREATE INDEX reconciliation_stale ON reconciliation (stale_at) WHERE stale_at IS NOT NULL;

CREATE TABLE reconcile_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_event_id INTEGER NOT NULL      -- every event up to this id is reflected in reconciliation
);
INSERT INTO reconcile_state (id, last_event_id) VALUES (1, 0);

-- Callbacks for a reference we do not know, with the resolution that covers each (if any).
CREATE VIEW reconciliation_orphans AS
SELECT e.id AS event_id, e.merchant_reference, e.internal_reference, e.source, e.kind, e.status,
       e.received_at, e.signature, e.amount_minor, e.currency,
       (SELECT MAX(r.id) FROM collection_events r
         WHERE r.collection_id IS NULL AND r.kind = 'resolution' AND r.merchant_reference = e.merchant_reference
           AND r.id > e.id) AS resolved_by_event_id
FROM collection_events e
WHERE e.collection_id IS NULL AND e.kind <> 'resolution';
CREATE INDEX collection_events_orphan_refs ON collection_events (merchant_reference, id) WHERE collection_id IS NULL;
`;
