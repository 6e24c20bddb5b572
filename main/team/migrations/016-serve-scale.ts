// Two things for `serve` at 10,000 callbacks a second, and for two or more `serve` instances (issue 31).
//
// 1. The chain's canonical text, built with less work per row. Every insert into team.events hashes
//    the row in events_zz_chain (migration 10), under the events' write turn, so what that trigger costs
//    bounds how many events the whole team can commit a second. team.event_canonical built the text from
//    one to_json and one coalesce per column, joined them, and ran a regular expression over the whole
//    text (payload included) to drop trailing nulls: measured, about a fifth of PostgreSQL's CPU per
//    stored callback (59-63 against 48-51 µs a row, groups of 100, same run). The text is the same, byte
//    for byte, written another way:
//    - array_to_json over the columns' texts writes each value with the same escaping to_json uses
//      (PostgreSQL's escape_json), null as null, joined by ',' between '[' and ']': exactly the old
//      join. The list of columns is now in ONE place on this side, team.event_canonical_values.
//    - Trailing nulls can only be dropped when the last column is null: every other value is a JSON
//      string, which ends in '"', so '(,null)+$' cannot match. The expression runs only then (an
//      event without evidence), on the same text, and drops the same thing.
//    CREATE OR REPLACE keeps the function's owner and grants; every stored hash stays as it is, and
//    test/team/canonical-fast.test.ts compares both definitions over awkward values.
//
// 2. The poller lease: one poller among the `serve` instances of a team, decided by PostgreSQL. Each
//    instance asks team.take_poller_lease every few seconds with an id of its own; the one row of
//    team.poller_lease says who holds it until when (the database's clock, one clock for all). The
//    holder renews it; another instance gets it only once it has expired (the holder stopped, was
//    killed, or lost the database), or was given back by team.release_poller_lease at a clean stop.
//    Not an advisory lock: any login may take any advisory lock (migration 8 says why the write turn is
//    no longer one), so a finance login could have kept every serve from polling. Only the functions
//    below write the table, and only receiver logins may call them. A poll's write takes (or renews) the
//    lease in its own statement and writes only while its instance holds it (store/pg/balance-snapshots.ts),
//    so what an instance polled while it could not reach the database is written when the database is back
//    only if no other instance polls meanwhile (serve/poll-lease.ts).
export const sql = `
CREATE FUNCTION team.event_canonical_values(e team.events) RETURNS text[] LANGUAGE sql STABLE AS $fn$
  SELECT ARRAY[
    e.seq::text,
    e.event_key,
    e.merchant_reference,
    e.internal_reference,
    e.source,
    e.kind,
    e.status,
    e.amount_minor::text,
    e.currency,
    e.signature,
    e.payload,
    e.note,
    e.payment_url,
    e.status_message,
    floor(extract(epoch FROM e.occurred_at) * 1000)::bigint::text,
    floor(extract(epoch FROM e.recorded_at) * 1000)::bigint::text,
    e.actor::text,
    e.evidence
  ]
$fn$;

-- The test on e.evidence is the test on the last column of the list above: a column appended there
-- is tested here instead.
CREATE OR REPLACE FUNCTION team.event_canonical(e team.events) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT CASE WHEN e.evidence IS NOT NULL THEN array_to_json(team.event_canonical_values(e))::text
              ELSE regexp_replace(array_to_json(team.event_canonical_values(e))::text, '(,null)+\\]$', ']') END
$fn$;

REVOKE ALL ON FUNCTION team.event_canonical_values(team.events) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.event_canonical_values(team.events)
  TO team_operator_admin, support, finance, back_office;

CREATE TABLE team.poller_lease (
  one_row boolean PRIMARY KEY DEFAULT true CHECK (one_row),
  -- The instance's own id (serve makes one at each start: host, pid and random), and its login.
  holder text NOT NULL CHECK (length(holder) BETWEEN 1 AND 200),
  login name NOT NULL,
  taken_at timestamptz NOT NULL,
  renewed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
REVOKE ALL ON team.poller_lease FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE ON team.poller_lease TO team_record_keeper;
GRANT SELECT ON team.poller_lease TO admin;

-- Takes the lease for the instance for so many seconds, or renews it when it holds it already. Says
-- whether the instance holds it after the call, who does, and for how many more milliseconds (by the
-- database's clock: the caller counts them on its own).
CREATE FUNCTION team.take_poller_lease(instance text, seconds integer)
RETURNS TABLE (held boolean, holder text, remaining_ms bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
#variable_conflict use_column
DECLARE at timestamptz := clock_timestamp();
BEGIN
  IF instance IS NULL OR length(instance) NOT BETWEEN 1 AND 200 THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'instance: must be 1 to 200 characters';
  END IF;
  IF seconds IS NULL OR seconds NOT BETWEEN 1 AND 3600 THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'seconds: must be 1 to 3600';
  END IF;
  IF EXISTS (SELECT 1 FROM team.operators o WHERE o.login = session_user AND o.disabled_at IS NOT NULL) THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('the operator %s is disabled; ask an admin', session_user);
  END IF;
  -- The row is locked by the first of two instances asking at once; the second sees its result.
  INSERT INTO team.poller_lease AS l (one_row, holder, login, taken_at, renewed_at, expires_at)
  VALUES (true, instance, session_user, at, at, at + make_interval(secs => seconds))
  ON CONFLICT (one_row) DO UPDATE
    SET holder = excluded.holder, login = excluded.login,
        taken_at = CASE WHEN l.holder = excluded.holder THEN l.taken_at ELSE excluded.taken_at END,
        renewed_at = excluded.renewed_at, expires_at = excluded.expires_at
    WHERE l.holder = excluded.holder OR l.expires_at <= excluded.renewed_at;
  RETURN QUERY
    SELECT l.holder = instance, l.holder, greatest(0, floor(extract(epoch FROM l.expires_at - at) * 1000))::bigint
    FROM team.poller_lease l;
END $fn$;

-- Gives the lease back (a clean stop): another instance takes it at its next try, not after it expires.
CREATE FUNCTION team.release_poller_lease(instance text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  UPDATE team.poller_lease SET expires_at = clock_timestamp() WHERE holder = instance AND expires_at > clock_timestamp();
  RETURN FOUND;
END $fn$;

GRANT CREATE ON SCHEMA team TO team_record_keeper;
ALTER FUNCTION team.take_poller_lease(text, integer) OWNER TO team_record_keeper;
ALTER FUNCTION team.release_poller_lease(text) OWNER TO team_record_keeper;
REVOKE CREATE ON SCHEMA team FROM team_record_keeper;
REVOKE ALL ON FUNCTION team.take_poller_lease(text, integer), team.release_poller_lease(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.take_poller_lease(text, integer), team.release_poller_lease(text) TO receiver;
`;
