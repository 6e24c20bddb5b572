// Tamper evidence beyond the roles. Roles stop teammates; they do not stop whoever holds the server's
// superuser, who can disable the append-only trigger and rewrite, delete or reorder events. So each
// event carries `hash` = sha256(prev_hash || its canonical content), and `prev_hash` is the hash of the
// event before it (the greatest seq below; the first event's prev_hash is GENESIS, 32 zero bytes).
// Desks recompute the chain from what they pull and keep the head they have seen (seq, hash): a row
// changed afterwards, even with every later hash recomputed, no longer gives the head they kept
// (team/chain.ts, team/sync/chain-check.ts).
//
// The canonical content is defined ONCE here (team.event_canonical) and once in team/chain.ts, over
// every column a desk uses, as a JSON array of texts and nulls: each value's text (numbers in decimal,
// times as epoch milliseconds floored, as the desk reads them) encoded by to_json (PostgreSQL's
// escape_json, which escapes exactly what JSON.stringify does), joined by ',' between '[' and ']',
// with trailing nulls dropped. Dropping them makes the list safe to extend: a column appended later is
// null in every older row, so the older rows' canonical text, and their hashes, stay as they are. A
// column appended to the list must be appended on both sides, at the end.
//
// The hash is set by the BEFORE INSERT trigger events_zz_chain. PostgreSQL fires triggers of one event
// in name order: events_stamp (migration 1) first takes the advisory lock that orders seq and sets seq,
// actor and recorded_at; then this one, under that same lock held to commit, reads the previous row's
// hash, so the chain follows seq exactly. Its name sorts last on purpose: a trigger that changes NEW
// must fire before it, or the row would be stored unlike what was hashed. It is SECURITY DEFINER
// (owned, like the operator functions, by team_operator_admin) because the inserting login may not
// read the previous row (receiver reads only its own sources).
//
// Existing rows (a database migrating from 7) get their chain here, in seq order, by a running
// aggregate (team.chain_hash over event_canonical in seq order) in one statement.
export const sql = `
ALTER TABLE team.events ADD COLUMN prev_hash bytea, ADD COLUMN hash bytea;

CREATE FUNCTION team.chain_genesis() RETURNS bytea LANGUAGE sql IMMUTABLE AS $fn$ SELECT decode(repeat('00', 32), 'hex') $fn$;

-- The canonical content of an event (see the top of this file). The one list of columns on this side.
CREATE FUNCTION team.event_canonical(e team.events) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT '[' || regexp_replace(array_to_string(ARRAY[
    coalesce(to_json(e.seq::text)::text, 'null'),
    coalesce(to_json(e.event_key)::text, 'null'),
    coalesce(to_json(e.merchant_reference)::text, 'null'),
    coalesce(to_json(e.internal_reference)::text, 'null'),
    coalesce(to_json(e.source)::text, 'null'),
    coalesce(to_json(e.kind)::text, 'null'),
    coalesce(to_json(e.status)::text, 'null'),
    coalesce(to_json(e.amount_minor::text)::text, 'null'),
    coalesce(to_json(e.currency)::text, 'null'),
    coalesce(to_json(e.signature)::text, 'null'),
    coalesce(to_json(e.payload)::text, 'null'),
    coalesce(to_json(e.note)::text, 'null'),
    coalesce(to_json(e.payment_url)::text, 'null'),
    coalesce(to_json(e.status_message)::text, 'null'),
    coalesce(to_json(floor(extract(epoch FROM e.occurred_at) * 1000)::bigint::text)::text, 'null'),
    coalesce(to_json(floor(extract(epoch FROM e.recorded_at) * 1000)::bigint::text)::text, 'null'),
    coalesce(to_json(e.actor::text)::text, 'null')
  ], ','), '(,null)+$', '') || ']'
$fn$;

CREATE FUNCTION team.chain_step(state bytea, canonical text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $fn$
  SELECT sha256(state || convert_to(canonical, 'UTF8'))
$fn$;

-- A running hash over canonical texts in the order given: the chain of every row up to each.
CREATE AGGREGATE team.chain_hash(text) (
  SFUNC = team.chain_step,
  STYPE = bytea,
  INITCOND = '\\x0000000000000000000000000000000000000000000000000000000000000000'
);

ALTER TABLE team.events DISABLE TRIGGER events_append_only;
WITH running AS (
  SELECT seq, team.chain_hash(team.event_canonical(e)) OVER (ORDER BY seq) AS hash FROM team.events e
), linked AS (
  SELECT seq, hash, lag(hash, 1, team.chain_genesis()) OVER (ORDER BY seq) AS prev_hash FROM running
)
UPDATE team.events e SET hash = l.hash, prev_hash = l.prev_hash FROM linked l WHERE e.seq = l.seq;
ALTER TABLE team.events ENABLE TRIGGER events_append_only;

ALTER TABLE team.events
  ALTER COLUMN prev_hash SET NOT NULL,
  ALTER COLUMN hash SET NOT NULL,
  ADD CONSTRAINT events_hash_length CHECK (length(prev_hash) = 32 AND length(hash) = 32);

CREATE FUNCTION team.chain_event() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE prev bytea;
BEGIN
  -- events_stamp fired first and holds the lock that orders seq: no other writer's row comes between.
  SELECT e.hash INTO prev FROM team.events e WHERE e.seq < NEW.seq ORDER BY e.seq DESC LIMIT 1;
  NEW.prev_hash := coalesce(prev, team.chain_genesis());
  NEW.hash := team.chain_step(NEW.prev_hash, team.event_canonical(NEW));
  RETURN NEW;
END $fn$;
CREATE TRIGGER events_zz_chain BEFORE INSERT ON team.events FOR EACH ROW EXECUTE FUNCTION team.chain_event();

-- The trigger's owner reads the previous row's hash, and nothing else of anyone's events.
GRANT SELECT (seq, hash) ON team.events TO team_operator_admin;
CREATE POLICY events_chain ON team.events FOR SELECT TO team_operator_admin USING (true);
GRANT CREATE ON SCHEMA team TO team_operator_admin;
ALTER FUNCTION team.chain_event() OWNER TO team_operator_admin;
REVOKE CREATE ON SCHEMA team FROM team_operator_admin;
REVOKE ALL ON FUNCTION team.chain_genesis(), team.event_canonical(team.events), team.chain_step(bytea, text),
  team.chain_event() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.chain_genesis(), team.event_canonical(team.events), team.chain_step(bytea, text)
  TO team_operator_admin, support, finance, back_office;
`;
