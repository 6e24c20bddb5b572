// Ready for an office network, where not every login is trusted to be patient or honest:
//
// 1. Write turns only writers can take. Migration 1 kept rows committing in seq order with an advisory
//    lock, and any login may take any advisory lock: a finance login holding pg_advisory_lock(19780, 1)
//    stalled every event write. Each stamped table now has a write-turn table (no columns, no rows, no
//    grants) that a BEFORE INSERT statement trigger (take_write_turn) locks IN EXCLUSIVE MODE before
//    stamp_row draws any seq, held to commit as the advisory lock was, so rows still commit in seq
//    order (see 001). take_write_turn is SECURITY DEFINER, so only an INSERT a login may make on the
//    stamped table takes the turn; no login can LOCK the turn tables itself (LOCK TABLE needs UPDATE,
//    DELETE or TRUNCATE there, or SELECT for ACCESS SHARE, and none is granted). Readers of the record
//    never touch them. Once per statement, not per row: a batch of events costs what it did.
//
// 2. A writer cannot keep the turn. Per-role settings do not pass from a group to its member logins,
//    and a client's own settings are the client's to forget, so the timeouts are set where the turn is
//    taken: once a transaction has written a stamped row (or an intent), each later statement in it
//    may run 3 s and it may sit idle 3 s; past that PostgreSQL cancels the statement (which aborts the
//    transaction and so releases the turn) or ends the session. A writer waiting for the turn gives up
//    after 10 s (lock_not_available, 55P03) rather than wait forever: behind a client that undid those
//    settings (SET LOCAL is a client's to change), or one INSERT that keeps running itself, which no
//    setting made inside it can cut short.
//
// 3. A disabled operator writes nothing. take_write_turn refuses the insert of a disabled operator:
//    it covers a session that signed in while the disable was committing (which disable_operator,
//    ending sessions before its own commit, could not see) until end_operator_sessions, called by
//    operators.ts after the disable committed, ends it.
//
// 4. serve's login reads no reference. Migration 4 let receiver SELECT event_key for its INSERT ...
//    RETURNING, and keys hold the merchant reference (callback:<reference>:<digest>). It keeps seq only;
//    its duplicate check asks events_stored, which answers yes or no for keys the caller already holds.
//
// The SECURITY DEFINER functions here (take_write_turn, stamp_intent, events_stored) belong to
// team_record_keeper, a NOLOGIN role with only what they need, never to the migrating superuser.
export const sql = `
DO $do$
DECLARE
  existing record;
BEGIN
  SELECT rolcanlogin, rolsuper INTO existing FROM pg_roles WHERE rolname = 'team_record_keeper';
  IF FOUND THEN
    IF existing.rolcanlogin OR existing.rolsuper THEN
      RAISE EXCEPTION 'a role named team_record_keeper already exists and can sign in (or is a superuser): the team workspace needs it as a group (NOLOGIN); rename that role first';
    END IF;
  ELSE
    BEGIN
      CREATE ROLE team_record_keeper NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL; -- created meanwhile by a migration of another database
    END;
  END IF;
  -- Handing functions to it needs membership, as for team_operator_admin in migration 3.
  IF NOT pg_has_role('team_record_keeper', 'MEMBER') THEN
    BEGIN
      EXECUTE format('GRANT team_record_keeper TO %I', current_user);
    EXCEPTION WHEN unique_violation THEN
      NULL;
    END;
  END IF;
END $do$;

CREATE TABLE team.events_write_turn ();
CREATE TABLE team.balance_snapshots_write_turn ();
CREATE TABLE team.payment_option_lists_write_turn ();
REVOKE ALL ON team.events_write_turn, team.balance_snapshots_write_turn, team.payment_option_lists_write_turn FROM PUBLIC;

-- The timeouts of a transaction that has written: its later statements and its idle time are short,
-- so the write turn it holds passes on within seconds. Local to the transaction (set_config's true).
CREATE FUNCTION team.limit_writing_transaction() RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  PERFORM set_config('statement_timeout', '3s', true);
  PERFORM set_config('idle_in_transaction_session_timeout', '3s', true);
END $fn$;
REVOKE ALL ON FUNCTION team.limit_writing_transaction() FROM PUBLIC;

-- Before an INSERT statement on a stamped table draws any seq: the disabled check, the turn, the timeouts.
CREATE FUNCTION team.take_write_turn() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' AS $fn$
BEGIN
  IF EXISTS (SELECT 1 FROM team.operators o WHERE o.login = session_user AND o.disabled_at IS NOT NULL) THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('the operator %s is disabled; ask an admin', session_user);
  END IF;
  CASE TG_TABLE_NAME
    WHEN 'events' THEN LOCK TABLE team.events_write_turn IN EXCLUSIVE MODE;
    WHEN 'balance_snapshots' THEN LOCK TABLE team.balance_snapshots_write_turn IN EXCLUSIVE MODE;
    WHEN 'payment_option_lists' THEN LOCK TABLE team.payment_option_lists_write_turn IN EXCLUSIVE MODE;
  END CASE;
  PERFORM team.limit_writing_transaction();
  RETURN NULL;
END $fn$;
CREATE TRIGGER events_take_turn BEFORE INSERT ON team.events
  FOR EACH STATEMENT EXECUTE FUNCTION team.take_write_turn();
CREATE TRIGGER balance_snapshots_take_turn BEFORE INSERT ON team.balance_snapshots
  FOR EACH STATEMENT EXECUTE FUNCTION team.take_write_turn();
CREATE TRIGGER payment_option_lists_take_turn BEFORE INSERT ON team.payment_option_lists
  FOR EACH STATEMENT EXECUTE FUNCTION team.take_write_turn();

-- As in migration 1, without the advisory lock: the statement took its turn before this row.
CREATE OR REPLACE FUNCTION team.stamp_row() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.actor IS NOT NULL AND NEW.actor <> session_user THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('actor is set by the database from the signed-in login (%s); a client may not name another (%s)', session_user, NEW.actor);
  END IF;
  NEW.seq := nextval(TG_ARGV[0]::regclass);
  NEW.actor := session_user;
  NEW.recorded_at := clock_timestamp();
  RETURN NEW;
END $fn$;

-- An intent's row is locked to its writer's commit too (one charge per reference), so its
-- transaction gets the same timeouts; a disabled operator creates none.
CREATE OR REPLACE FUNCTION team.stamp_intent() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  IF NEW.created_by IS NOT NULL AND NEW.created_by <> session_user THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('created_by is set by the database from the signed-in login (%s); a client may not name another (%s)', session_user, NEW.created_by);
  END IF;
  IF EXISTS (SELECT 1 FROM team.operators o WHERE o.login = session_user AND o.disabled_at IS NOT NULL) THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('the operator %s is disabled; ask an admin', session_user);
  END IF;
  PERFORM team.limit_writing_transaction();
  NEW.created_by := session_user;
  NEW.created_at := clock_timestamp();
  RETURN NEW;
END $fn$;

-- Ends every session of a disabled operator; returns how many are still there afterwards, or NULL
-- when the team's operator admin may not end sessions (no pg_signal_backend, see migration 2).
-- operators.ts calls it after disable_operator committed, until it finds none, because a session that
-- signed in before the NOLOGIN committed is not ended by disable_operator itself.
CREATE FUNCTION team.end_operator_sessions(operator_login text) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  op team.operators;
  still integer;
BEGIN
  SELECT * INTO op FROM team.operators o WHERE o.login = operator_login;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'undefined_object', MESSAGE = format('login: no operator %s in this team', quote_literal(operator_login));
  END IF;
  IF op.disabled_at IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'object_not_in_prerequisite_state',
      MESSAGE = format('login: %s is not disabled; only a disabled operator''s sessions are ended', quote_literal(operator_login));
  END IF;
  IF NOT pg_has_role('pg_signal_backend', 'MEMBER') THEN RETURN NULL; END IF;
  -- Waits (up to 1 s each) until the session has ended, so the count below does not see it leaving.
  PERFORM pg_terminate_backend(a.pid, 1000) FROM pg_stat_activity a
   WHERE a.usename = operator_login AND a.pid <> pg_backend_pid();
  PERFORM pg_stat_clear_snapshot(); -- pg_stat_activity is otherwise read once per transaction
  SELECT count(*) INTO still FROM pg_stat_activity a WHERE a.usename = operator_login AND a.pid <> pg_backend_pid();
  RETURN still;
END $fn$;

-- Whether each key is stored (in the order given), for a writer that may not read keys: it learns
-- nothing it did not already hold but yes or no.
-- PL/pgSQL rather than SQL: it keeps its plan for the session, where a SQL function is planned anew at
-- every call (serve asks once per group of callbacks).
CREATE FUNCTION team.events_stored(keys text[]) RETURNS boolean[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  RETURN (SELECT coalesce(array_agg(EXISTS (SELECT 1 FROM team.events e WHERE e.event_key = k.key) ORDER BY k.n), '{}')
          FROM unnest(keys) WITH ORDINALITY AS k (key, n));
END $fn$;

REVOKE SELECT (event_key) ON team.events FROM receiver;

-- What the record keeper's functions do, and nothing more: read the operators, take a write turn
-- (UPDATE is what LOCK TABLE asks of it), and look a key up (row-level security applies).
GRANT USAGE ON SCHEMA team TO team_record_keeper;
GRANT SELECT ON team.operators TO team_record_keeper;
GRANT UPDATE ON team.events_write_turn, team.balance_snapshots_write_turn, team.payment_option_lists_write_turn TO team_record_keeper;
GRANT EXECUTE ON FUNCTION team.limit_writing_transaction() TO team_record_keeper;
GRANT SELECT (event_key) ON team.events TO team_record_keeper;
CREATE POLICY events_record_keeper ON team.events FOR SELECT TO team_record_keeper USING (true);

-- A non-superuser may hand an object only to a role that may create in its schema: granted for the
-- hand-over alone (as in migration 3).
GRANT CREATE ON SCHEMA team TO team_operator_admin, team_record_keeper;
ALTER FUNCTION team.end_operator_sessions(text) OWNER TO team_operator_admin;
ALTER FUNCTION team.take_write_turn() OWNER TO team_record_keeper;
ALTER FUNCTION team.stamp_intent() OWNER TO team_record_keeper;
ALTER FUNCTION team.events_stored(text[]) OWNER TO team_record_keeper;
REVOKE CREATE ON SCHEMA team FROM team_operator_admin, team_record_keeper;

REVOKE ALL ON FUNCTION team.take_write_turn(), team.end_operator_sessions(text), team.events_stored(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.end_operator_sessions(text) TO admin;
GRANT EXECUTE ON FUNCTION team.events_stored(text[]) TO receiver;
`;
