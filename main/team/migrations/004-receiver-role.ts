// The group of `merchant-desk serve`'s login: it receives the service's callbacks and polls balances and
// payment options for the whole team, so it may insert callback and security events, balance snapshots
// and payment option lists, and nothing else. An admin creates its login like any operator's
// (team.add_operator with role 'receiver').
//
// INSERT ... RETURNING seq, event_key (events.ts appendEvents) needs SELECT on those two columns, and
// row-level security then asks the new rows to pass a SELECT policy too: both are limited to what the
// receiver itself may write, so it reads no payload, amount or reference of anyone's event.
export const sql = `
DO $do$
DECLARE
  existing record;
BEGIN
  SELECT rolcanlogin, rolsuper INTO existing FROM pg_roles WHERE rolname = 'receiver';
  IF FOUND THEN
    IF existing.rolcanlogin OR existing.rolsuper THEN
      RAISE EXCEPTION 'a role named receiver already exists and can sign in (or is a superuser): the team workspace needs receiver as a group (NOLOGIN); rename that role first';
    END IF;
  ELSE
    BEGIN
      CREATE ROLE receiver NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL; -- created meanwhile by a migration of another database
    END;
  END IF;
  IF NOT EXISTS (
    SELECT 1 FROM pg_auth_members am
    WHERE am.roleid = 'receiver'::regrole AND am.member = 'team_operator_admin'::regrole AND am.admin_option
  ) THEN
    BEGIN
      GRANT receiver TO team_operator_admin WITH ADMIN OPTION;
    EXCEPTION WHEN unique_violation THEN
      NULL;
    END;
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO receiver', current_database());
END $do$;

GRANT USAGE ON SCHEMA team TO receiver;
GRANT EXECUTE ON FUNCTION team.stamp_row(), team.notify_events() TO receiver;

GRANT INSERT (event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
  signature, payload, note, occurred_at) ON team.events TO receiver;
GRANT SELECT (seq, event_key) ON team.events TO receiver;
GRANT USAGE ON SEQUENCE team.events_seq TO receiver;
CREATE POLICY events_receiver ON team.events FOR INSERT TO receiver
  WITH CHECK (source IN ('callback', 'security'));
CREATE POLICY events_receiver_returning ON team.events FOR SELECT TO receiver
  USING (source IN ('callback', 'security'));

GRANT INSERT (observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
  ON team.balance_snapshots TO receiver;
GRANT INSERT (fetched_at, options) ON team.payment_option_lists TO receiver;
GRANT USAGE ON SEQUENCE team.balance_snapshots_seq, team.payment_option_lists_seq TO receiver;

-- receiver is an operator role an admin may give: the role check and the operators table learn it.
CREATE OR REPLACE FUNCTION team.check_operator_role(operator_role text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  IF operator_role IS NULL OR operator_role NOT IN ('support', 'finance', 'back_office', 'admin', 'receiver') THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
      MESSAGE = format('role must be one of support, finance, back_office, admin, receiver (got %s)', coalesce(quote_literal(operator_role), 'nothing'));
  END IF;
END $fn$;
ALTER TABLE team.operators DROP CONSTRAINT operators_role_check;
ALTER TABLE team.operators ADD CONSTRAINT operators_role_check
  CHECK (role IN ('support', 'finance', 'back_office', 'admin', 'receiver'));
`;
