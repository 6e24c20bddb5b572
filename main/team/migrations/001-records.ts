// The team's shared record. Times are timestamptz; amounts bigint minor units (as in SQLite).
//
// Append-only tables (events, intents, balance_snapshots, payment_option_lists) refuse UPDATE, DELETE
// and TRUNCATE by trigger, whoever asks (the owner too); no client role is granted them either.
//
// seq, recorded_at and actor are set by a BEFORE INSERT trigger, never by the client:
// - actor is session_user, the login that signed in (it stays the login inside SECURITY DEFINER
//   functions and after SET ROLE); a client that names an actor is refused, not silently corrected.
// - seq is drawn after taking a transaction-level advisory lock held to commit, so rows commit in seq
//   order. Without it a writer that drew seq 5 could commit after another's seq 6 was pulled, and a
//   desktop reading `seq > last_seen` would never see 5. The lock serialises writers of one table
//   for the rest of their transaction: keep writing transactions short.
export const sql = `
CREATE FUNCTION team.stamp_row() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.actor IS NOT NULL AND NEW.actor <> session_user THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('actor is set by the database from the signed-in login (%s); a client may not name another (%s)', session_user, NEW.actor);
  END IF;
  PERFORM pg_advisory_xact_lock(19780, TG_ARGV[1]::integer);
  NEW.seq := nextval(TG_ARGV[0]::regclass);
  NEW.actor := session_user;
  NEW.recorded_at := clock_timestamp();
  RETURN NEW;
END $fn$;

CREATE FUNCTION team.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
    MESSAGE = format('%s is append-only: %s refused', TG_TABLE_NAME, TG_OP);
END $fn$;

-- A charge's intent: the row whose unique merchant_reference makes it one charge per intent across the team.
CREATE TABLE team.intents (
  merchant_reference text PRIMARY KEY CHECK (length(merchant_reference) BETWEEN 1 AND 100),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  description text NOT NULL,
  created_at timestamptz NOT NULL,
  created_by name NOT NULL
);
CREATE FUNCTION team.stamp_intent() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.created_by IS NOT NULL AND NEW.created_by <> session_user THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('created_by is set by the database from the signed-in login (%s); a client may not name another (%s)', session_user, NEW.created_by);
  END IF;
  NEW.created_by := session_user;
  NEW.created_at := clock_timestamp();
  RETURN NEW;
END $fn$;
CREATE TRIGGER intents_stamp BEFORE INSERT ON team.intents FOR EACH ROW EXECUTE FUNCTION team.stamp_intent();

-- Everything any source said about a collection, as in SQLite's collection_events, plus the server
-- sequence desktops pull by. event_key is the dedupe key: writing an event twice stores it once.
CREATE SEQUENCE team.events_seq AS bigint;
CREATE TABLE team.events (
  seq bigint PRIMARY KEY,
  event_key text NOT NULL UNIQUE CHECK (length(event_key) BETWEEN 1 AND 300),
  merchant_reference text NOT NULL,
  internal_reference text,
  source text NOT NULL CHECK (source IN ('intent', 'initiate', 'redirect', 'callback', 'import', 'manual', 'security')),
  kind text NOT NULL CHECK (length(kind) BETWEEN 1 AND 64),
  status text,
  amount_minor bigint,
  currency text CHECK (currency ~ '^[A-Z]{3}$'),
  signature text NOT NULL CHECK (signature IN ('verified', 'invalid', 'missing', 'not_applicable')),
  payload text,
  note text,
  occurred_at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL,
  actor name NOT NULL
);
CREATE INDEX events_reference ON team.events (merchant_reference, seq);

CREATE SEQUENCE team.balance_snapshots_seq AS bigint;
CREATE TABLE team.balance_snapshots (
  seq bigint PRIMARY KEY,
  observed_at timestamptz NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  wallet_type text NOT NULL,
  available_minor bigint NOT NULL,
  actual_minor bigint NOT NULL,
  uncleared_minor bigint NOT NULL,
  reserve_minor bigint NOT NULL,
  recorded_at timestamptz NOT NULL,
  actor name NOT NULL
);
CREATE INDEX balance_snapshots_wallet_time ON team.balance_snapshots (currency, wallet_type, observed_at);

-- Each successful poll's whole list of payment options (a JSON array); the newest row is the list.
CREATE SEQUENCE team.payment_option_lists_seq AS bigint;
CREATE TABLE team.payment_option_lists (
  seq bigint PRIMARY KEY,
  fetched_at timestamptz NOT NULL,
  options jsonb NOT NULL CHECK (jsonb_typeof(options) = 'array'),
  recorded_at timestamptz NOT NULL,
  actor name NOT NULL
);

CREATE TRIGGER events_stamp BEFORE INSERT ON team.events
  FOR EACH ROW EXECUTE FUNCTION team.stamp_row('team.events_seq', '1');
CREATE TRIGGER balance_snapshots_stamp BEFORE INSERT ON team.balance_snapshots
  FOR EACH ROW EXECUTE FUNCTION team.stamp_row('team.balance_snapshots_seq', '2');
CREATE TRIGGER payment_option_lists_stamp BEFORE INSERT ON team.payment_option_lists
  FOR EACH ROW EXECUTE FUNCTION team.stamp_row('team.payment_option_lists_seq', '3');

CREATE TRIGGER intents_append_only BEFORE UPDATE OR DELETE ON team.intents FOR EACH ROW EXECUTE FUNCTION team.refuse_change();
CREATE TRIGGER intents_no_truncate BEFORE TRUNCATE ON team.intents FOR EACH STATEMENT EXECUTE FUNCTION team.refuse_change();
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON team.events FOR EACH ROW EXECUTE FUNCTION team.refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON team.events FOR EACH STATEMENT EXECUTE FUNCTION team.refuse_change();
CREATE TRIGGER balance_snapshots_append_only BEFORE UPDATE OR DELETE ON team.balance_snapshots FOR EACH ROW EXECUTE FUNCTION team.refuse_change();
CREATE TRIGGER balance_snapshots_no_truncate BEFORE TRUNCATE ON team.balance_snapshots FOR EACH STATEMENT EXECUTE FUNCTION team.refuse_change();
CREATE TRIGGER payment_option_lists_append_only BEFORE UPDATE OR DELETE ON team.payment_option_lists FOR EACH ROW EXECUTE FUNCTION team.refuse_change();
CREATE TRIGGER payment_option_lists_no_truncate BEFORE TRUNCATE ON team.payment_option_lists FOR EACH STATEMENT EXECUTE FUNCTION team.refuse_change();

-- One notification per inserting statement, with the highest new seq; delivered at commit, so a
-- listener never pulls before the rows are visible.
CREATE FUNCTION team.notify_events() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE top bigint;
BEGIN
  SELECT max(seq) INTO top FROM new_rows;
  IF top IS NOT NULL THEN PERFORM pg_notify('team_events', top::text); END IF;
  RETURN NULL;
END $fn$;
CREATE TRIGGER events_notify AFTER INSERT ON team.events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION team.notify_events();

-- Who may sign in, and as what. Written only through the SECURITY DEFINER functions of migration 3.
CREATE TABLE team.operators (
  login name PRIMARY KEY,
  role text NOT NULL CHECK (role IN ('support', 'finance', 'back_office', 'admin')),
  display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  created_by name NOT NULL DEFAULT session_user,
  changed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  changed_by name NOT NULL DEFAULT session_user
);
`;
