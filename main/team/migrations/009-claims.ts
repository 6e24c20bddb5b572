// One charge per intent, decided by the database: before a desk sends anything to the service for an
// intent that already exists (a re-send of an UNKNOWN payment), PostgreSQL grants it a claim through
// team.claim_intent. A desk's word that it may charge is not enough: the intent's row is readable by
// every operator, so without this a back_office desk could send initialize for another desk's payment.
//
// Who may claim: the operator who created the intent (team.intents.created_by) or an admin, and only
// while no other claim of that intent is open. Creating an intent IS the first claim (the trigger
// below opens it for the creator in the intent's own transaction), so a new charge's first initialize
// needs no second round trip and nobody else can claim the intent while it is being sent.
//
// When a claim ends: when its outcome is recorded, i.e. the holder's next 'initiate' event for the
// reference reaches team.events (every initialize a desk sends ends in one: accepted, exists, refused
// or unknown), or, if that never comes (the desk crashed or lost the database for good), five minutes
// after it was granted. Five minutes covers a slow service answer (the client gives up well before)
// plus a short outage while the answer waits on the desk, and a crashed desk blocks its payment for
// no longer than that. A claim is never held by "the same login again": a login signed in at two
// desks, or pressing re-send twice, gets the second claim refused like anyone else's.
//
// Who and when come from the database (session_user, clock_timestamp()), as for events. The table is
// readable by every operator group (a desk shows who holds a payment); only the functions write it.
export const sql = `
CREATE TABLE team.claims (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- No foreign key to team.intents: only the functions below write claims, each for an intent it read,
  -- and a reference from here would make TRUNCATE of intents fail on the key before the append-only
  -- trigger can refuse it in its own words.
  merchant_reference text NOT NULL,
  claimed_by name NOT NULL,
  claimed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  closed_at timestamptz,
  -- The event whose recording closed it (its outcome), when one did.
  closed_by_seq bigint,
  CHECK (expires_at > claimed_at)
);
CREATE INDEX claims_open ON team.claims (merchant_reference, claimed_at DESC) WHERE closed_at IS NULL;

REVOKE ALL ON team.claims FROM PUBLIC;
GRANT SELECT ON team.claims TO support, finance, back_office;

-- How long an unclosed claim holds its intent (see the top of this file).
CREATE FUNCTION team.claim_lifetime() RETURNS interval LANGUAGE sql IMMUTABLE AS $fn$ SELECT interval '5 minutes' $fn$;

-- Creating an intent is its creator's claim.
CREATE FUNCTION team.claim_new_intent() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE at timestamptz := clock_timestamp();
BEGIN
  INSERT INTO team.claims (merchant_reference, claimed_by, claimed_at, expires_at)
  VALUES (NEW.merchant_reference, NEW.created_by, at, at + team.claim_lifetime());
  RETURN NULL;
END $fn$;
CREATE TRIGGER intents_claim AFTER INSERT ON team.intents FOR EACH ROW EXECUTE FUNCTION team.claim_new_intent();

-- The holder's outcome is recorded: its claim ends.
CREATE FUNCTION team.close_claim() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  UPDATE team.claims SET closed_at = clock_timestamp(), closed_by_seq = NEW.seq
   WHERE merchant_reference = NEW.merchant_reference AND claimed_by = NEW.actor AND closed_at IS NULL;
  RETURN NULL;
END $fn$;
CREATE TRIGGER events_close_claim AFTER INSERT ON team.events FOR EACH ROW
  WHEN (NEW.source = 'initiate') EXECUTE FUNCTION team.close_claim();

-- Grants the signed-in login a claim on an existing intent, or refuses naming why: no such intent
-- (undefined_object), not the creator nor an admin (insufficient_privilege), or another claim is open
-- (lock_not_available). A refusal's DETAIL carries, as JSON, who created the intent and who holds it,
-- so the desk can say so in its own words. Claims of one reference are serialised by an advisory lock
-- (class 19781, the reference's hash), so two at once cannot both see "none open".
CREATE FUNCTION team.claim_intent(reference text)
RETURNS TABLE (claimed_by name, claimed_at timestamptz, expires_at timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
#variable_conflict use_column
DECLARE
  it team.intents;
  held team.claims;
  at timestamptz;
BEGIN
  SELECT * INTO it FROM team.intents i WHERE i.merchant_reference = reference;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'undefined_object',
      MESSAGE = format('reference: no intent %s in the team record', coalesce(quote_literal(reference), 'nothing'));
  END IF;
  IF session_user <> it.created_by AND NOT pg_has_role(session_user, 'admin', 'MEMBER') THEN
    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
      MESSAGE = format('only %s (who created payment %s) or an admin may send it again; %s may not', it.created_by, reference, session_user),
      DETAIL = json_build_object('claim', 'not_allowed', 'created_by', it.created_by)::text;
  END IF;
  PERFORM pg_advisory_xact_lock(19781, hashtext(reference));
  at := clock_timestamp();
  SELECT * INTO held FROM team.claims c
   WHERE c.merchant_reference = reference AND c.closed_at IS NULL AND c.expires_at > at
   ORDER BY c.claimed_at DESC LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'lock_not_available',
      MESSAGE = format('payment %s is being sent by %s (claimed at %s, open until its outcome is recorded or %s)',
                       reference, held.claimed_by, held.claimed_at, held.expires_at),
      DETAIL = json_build_object('claim', 'held', 'created_by', it.created_by, 'held_by', held.claimed_by,
                                 'claimed_at', held.claimed_at, 'expires_at', held.expires_at)::text;
  END IF;
  INSERT INTO team.claims (merchant_reference, claimed_by, claimed_at, expires_at)
  VALUES (reference, session_user, at, at + team.claim_lifetime());
  RETURN QUERY SELECT session_user::name, at, at + team.claim_lifetime();
END $fn$;

-- The SECURITY DEFINER functions belong to team_operator_admin (NOLOGIN, not a superuser, as the
-- operator functions of migration 3), with only what they need: claims run with no more power than that
-- whoever migrated. Handed over as migration 3 does (CREATE on the schema for the hand-over alone).
GRANT SELECT ON team.intents TO team_operator_admin;
GRANT SELECT, INSERT, UPDATE ON team.claims TO team_operator_admin;
GRANT CREATE ON SCHEMA team TO team_operator_admin;
ALTER FUNCTION team.claim_new_intent() OWNER TO team_operator_admin;
ALTER FUNCTION team.close_claim() OWNER TO team_operator_admin;
ALTER FUNCTION team.claim_intent(text) OWNER TO team_operator_admin;
REVOKE CREATE ON SCHEMA team FROM team_operator_admin;

REVOKE ALL ON FUNCTION team.claim_lifetime(), team.claim_new_intent(), team.close_claim(), team.claim_intent(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.claim_lifetime() TO team_operator_admin;
GRANT EXECUTE ON FUNCTION team.claim_intent(text) TO support, finance, back_office;
`;
