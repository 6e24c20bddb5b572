// Times are INTEGER milliseconds since the Unix epoch (UTC). Amounts are INTEGER minor units.
// History tables (balance_snapshots, collection_events) are append-only, enforced by triggers.

/**
 * The append-only trigger on an event's UPDATE, exported so the one correction that may rewrite an
 * event (a snapshot's verdict this desk does not share, store/sqlite/team/event-verdicts.ts) makes it
 * again with exactly this text. Part of the shipped migration below: never edit it.
 */
export const collectionEventsNoUpdate = `CREATE TRIGGER collection_events_no_update BEFORE UPDATE ON collection_events
BEGIN SELECT RAISE(ABORT, 'collection_events is append-only'); END;`;

/** The append-only trigger on an event's DELETE, exported for the same reason (team/refold.ts). Never edit it. */
export const collectionEventsNoDelete = `CREATE TRIGGER collection_events_no_delete BEFORE DELETE ON collection_events
BEGIN SELECT RAISE(ABORT, 'collection_events is append-only'); END;`;

export const sql = `
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,            -- JSON; never a secret (keys live in the OS keychain)
  updated_at INTEGER NOT NULL
);

CREATE TABLE poll_runs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('balances', 'providers')),
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  outcome TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'error')),
  error_kind TEXT,
  error_message TEXT,
  http_status INTEGER,
  changed_rows INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX poll_runs_kind_started ON poll_runs (kind, started_at);

-- One row when a wallet's values change (or it is first seen); the poll log says when values were confirmed.
CREATE TABLE balance_snapshots (
  id INTEGER PRIMARY KEY,
  poll_run_id INTEGER REFERENCES poll_runs (id),
  observed_at INTEGER NOT NULL,
  currency TEXT NOT NULL,
  wallet_type TEXT NOT NULL,
  available_minor INTEGER NOT NULL,
  actual_minor INTEGER NOT NULL,
  uncleared_minor INTEGER NOT NULL,
  reserve_minor INTEGER NOT NULL
);
CREATE INDEX balance_snapshots_wallet_time ON balance_snapshots (currency, wallet_type, observed_at);
CREATE INDEX balance_snapshots_time ON balance_snapshots (observed_at);
CREATE TRIGGER balance_snapshots_no_update BEFORE UPDATE ON balance_snapshots
BEGIN SELECT RAISE(ABORT, 'balance_snapshots is append-only'); END;
CREATE TRIGGER balance_snapshots_no_delete BEFORE DELETE ON balance_snapshots
BEGIN SELECT RAISE(ABORT, 'balance_snapshots is append-only'); END;

-- The latest successful payment options list, replaced whole in one transaction per successful poll.
CREATE TABLE payment_options (
  provider_code TEXT NOT NULL,
  currency TEXT NOT NULL,
  transaction_type TEXT NOT NULL,
  provider_name TEXT NOT NULL,
  transaction_method TEXT NOT NULL,
  transaction_method_name TEXT NOT NULL,
  min_minor INTEGER NOT NULL,
  max_minor INTEGER NOT NULL,
  max_daily_minor INTEGER NOT NULL,
  is_active INTEGER NOT NULL,
  option_prefixes TEXT NOT NULL,  -- JSON array
  fetched_at INTEGER NOT NULL,
  poll_run_id INTEGER REFERENCES poll_runs (id),
  PRIMARY KEY (provider_code, currency, transaction_type)
);

-- A collection's intent (never card data; brand and last four digits only, for the receipt) and its
-- current state, a projection of collection_events kept for fast listing.
CREATE TABLE collections (
  id INTEGER PRIMARY KEY,
  merchant_reference TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  amount_minor INTEGER NOT NULL,
  currency TEXT NOT NULL,
  description TEXT NOT NULL,
  customer_name TEXT,
  customer_email TEXT,
  charge_customer INTEGER NOT NULL DEFAULT 0,
  allow_final_status_change INTEGER NOT NULL DEFAULT 1,
  operator TEXT NOT NULL,
  provider_code TEXT,
  redirect_url TEXT NOT NULL,
  card_brand TEXT,
  card_last4 TEXT,
  status TEXT NOT NULL CHECK (status IN ('INTENT', 'PENDING', 'REJECTED', 'UNKNOWN', 'COMPLETED', 'FAILED', 'CANCELLED')),
  status_changed_at INTEGER NOT NULL,
  internal_reference TEXT,
  payment_url TEXT,
  status_message TEXT,
  last_event_id INTEGER
);
CREATE INDEX collections_created ON collections (created_at);
CREATE INDEX collections_status_created ON collections (status, created_at);
CREATE INDEX collections_currency_created ON collections (currency, created_at);
CREATE INDEX collections_internal_reference ON collections (internal_reference);

-- Everything any source said about a collection, in arrival order. collection_id is NULL for a
-- callback whose reference we do not know (an orphan, kept for review).
CREATE TABLE collection_events (
  id INTEGER PRIMARY KEY,
  collection_id INTEGER REFERENCES collections (id),
  merchant_reference TEXT NOT NULL,
  internal_reference TEXT,
  source TEXT NOT NULL CHECK (source IN ('intent', 'initiate', 'redirect', 'callback', 'import', 'manual', 'security')),
  kind TEXT NOT NULL,
  status TEXT,
  received_at INTEGER NOT NULL,
  signature TEXT NOT NULL CHECK (signature IN ('verified', 'invalid', 'missing', 'not_applicable')),
  amount_minor INTEGER,
  currency TEXT,
  dedupe_key TEXT UNIQUE,
  payload TEXT,
  note TEXT,
  actor TEXT
);
CREATE INDEX collection_events_collection ON collection_events (collection_id, id);
CREATE INDEX collection_events_reference ON collection_events (merchant_reference);
CREATE INDEX collection_events_received ON collection_events (received_at);
${collectionEventsNoUpdate}
${collectionEventsNoDelete}
`;
