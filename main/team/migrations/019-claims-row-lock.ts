// A payment's claims serialised by a lock only the claim function can take. Migration 9 serialised them
// with pg_advisory_xact_lock(19781, hashtext(reference)), and any login may take any advisory lock (the
// reason migrations 8 and 16 use none): a finance login holding pg_advisory_lock(19781, …) at session
// level made every "Charge again" of that payment wait for as long as its session lived.
//
// Now team.claim_intent locks the intent's own row FOR NO KEY UPDATE. Taking a row lock needs UPDATE on
// the table, which no login has on team.intents; the function's owner (team_operator_admin, NOLOGIN) is
// given UPDATE of one column for it, and the append-only trigger (migration 1) still refuses any UPDATE.
// NO KEY UPDATE, not UPDATE: the events of the payment check their foreign key with KEY SHARE, which it
// does not block, so a claim never holds up the payment's own outcome. The row is locked only after the
// caller is found to be its creator or an admin: a refused caller's transaction, aborted, would
// otherwise hold the lock until it rolled back.
export const sql = `
GRANT UPDATE (merchant_reference) ON team.intents TO team_operator_admin;

CREATE OR REPLACE FUNCTION team.claim_intent(reference text)
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
  PERFORM 1 FROM team.intents i WHERE i.merchant_reference = reference FOR NO KEY UPDATE;
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
`;
