// A team desk's durable outbox: each event the service answered this desk (initialize answer, redirect,
// the window's closing) is stored with a row here in the same transaction (collections/ledger.ts), and
// the push (team/sync/push.ts) sends it until PostgreSQL has it, across outages, restarts and crashes.
// The event itself is the collection_events row; what the team's copy carries besides its columns (the
// kind as the service's answer named it, before the projection renamed a changed answer, the page URL and
// the status message, which the local history keeps only in the collection row) is kept here.
// state: 'pending' until sent; 'sent' once PostgreSQL has the key (stored now or before); 'refused' when
// the database refused it (a SQLSTATE that is not an outage), with its reason: never dropped.
export const sql = `
CREATE TABLE team_outbox (
  id INTEGER PRIMARY KEY,
  event_id INTEGER NOT NULL UNIQUE REFERENCES collection_events (id),
  event_key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  payment_url TEXT,
  status_message TEXT,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'refused')),
  attempts INTEGER NOT NULL DEFAULT 0,
  reason TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX team_outbox_pending ON team_outbox (id) WHERE state = 'pending';
CREATE INDEX team_outbox_refused ON team_outbox (event_id) WHERE state = 'refused';
`;
