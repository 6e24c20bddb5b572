// Who may do what, decided by PostgreSQL itself (not by the desktop): the groups support, finance,
// back_office and admin are NOLOGIN roles; each operator is a LOGIN role that is a member of one.
//
// Roles are cluster-wide while everything else here belongs to one database, so the groups may
// already exist (another team database, or a migration racing in one): they are created only when
// missing, tolerating a concurrent creator, and a same-named role that can sign in is refused rather
// than silently turned into a group. team_operator_admin (NOLOGIN, CREATEROLE) owns the operator
// functions of migration 3, so managing operators needs no superuser at run time.
//
// | group       | may                                                                                  |
// |-------------|--------------------------------------------------------------------------------------|
// | support     | read; create intents; write intent, initiate, redirect and security events (charge)  |
// | finance     | read (and so export); write balance snapshots and payment option lists (poll)        |
// | back_office | read; write callback, import, manual (resolutions) and security events; poll results |
// | admin       | everything the three others may (member of each), and the operator functions         |
//
// Column grants leave out seq, actor, recorded_at and created_by, so a client cannot even name them;
// row-level security narrows INSERT on events to the sources of each group, which a grant cannot.
export const sql = `
DO $do$
DECLARE
  r text;
  existing record;
BEGIN
  FOREACH r IN ARRAY ARRAY['support', 'finance', 'back_office', 'admin', 'team_operator_admin'] LOOP
    SELECT rolcanlogin, rolsuper, rolcreaterole INTO existing FROM pg_roles WHERE rolname = r;
    IF FOUND THEN
      IF existing.rolcanlogin OR existing.rolsuper THEN
        RAISE EXCEPTION 'a role named % already exists and can sign in (or is a superuser): the team workspace needs % as a group (NOLOGIN); rename that role first', r, r;
      END IF;
      IF r = 'team_operator_admin' AND NOT existing.rolcreaterole THEN
        RAISE EXCEPTION 'role team_operator_admin exists without CREATEROLE; grant it (ALTER ROLE team_operator_admin CREATEROLE) or drop it';
      END IF;
    ELSE
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN%s', r, CASE WHEN r = 'team_operator_admin' THEN ' CREATEROLE' ELSE '' END);
      EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL; -- created meanwhile by a migration of another database
      END;
    END IF;
  END LOOP;
END $do$;

-- Memberships: admin in the three others; team_operator_admin may grant each group (ADMIN OPTION,
-- which PostgreSQL 16 and later require of a CREATEROLE role); pg_signal_backend lets it end the
-- sessions of an operator it disables. Granted only when missing, tolerating a concurrent grant.
DO $do$
DECLARE
  g record;
BEGIN
  FOR g IN
    SELECT * FROM (VALUES
      ('support', 'admin', false), ('finance', 'admin', false), ('back_office', 'admin', false),
      ('support', 'team_operator_admin', true), ('finance', 'team_operator_admin', true),
      ('back_office', 'team_operator_admin', true), ('admin', 'team_operator_admin', true),
      ('pg_signal_backend', 'team_operator_admin', false)
    ) AS m (granted, member, with_admin)
  LOOP
    IF NOT EXISTS (
      SELECT 1 FROM pg_auth_members am
      WHERE am.roleid = g.granted::regrole AND am.member = g.member::regrole AND (am.admin_option OR NOT g.with_admin)
    ) THEN
      BEGIN
        EXECUTE format('GRANT %I TO %I%s', g.granted, g.member, CASE WHEN g.with_admin THEN ' WITH ADMIN OPTION' ELSE '' END);
      EXCEPTION
        WHEN unique_violation THEN NULL; -- granted meanwhile by a migration of another database
        WHEN insufficient_privilege THEN
          IF g.granted = 'pg_signal_backend' THEN
            RAISE NOTICE 'not a superuser: a disabled operator''s open sessions will end only when they next sign in';
          ELSE
            RAISE;
          END IF;
      END;
    END IF;
  END LOOP;
END $do$;

-- Only the groups may connect to this database.
DO $do$
BEGIN
  EXECUTE format('REVOKE CONNECT, TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO support, finance, back_office, admin', current_database());
END $do$;

REVOKE ALL ON SCHEMA team FROM PUBLIC;
GRANT USAGE ON SCHEMA team TO support, finance, back_office, admin, team_operator_admin;
REVOKE ALL ON ALL TABLES IN SCHEMA team FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA team FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA team FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.stamp_row(), team.stamp_intent(), team.refuse_change(), team.notify_events()
  TO support, finance, back_office;

GRANT SELECT ON team.intents, team.events, team.balance_snapshots, team.payment_option_lists, team.operators, team.schema_migrations
  TO support, finance, back_office;

GRANT INSERT (merchant_reference, amount_minor, currency, description) ON team.intents TO support;

GRANT INSERT (event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
  signature, payload, note, occurred_at) ON team.events TO support, back_office;
GRANT USAGE ON SEQUENCE team.events_seq TO support, back_office;

GRANT INSERT (observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor)
  ON team.balance_snapshots TO finance, back_office;
GRANT INSERT (fetched_at, options) ON team.payment_option_lists TO finance, back_office;
GRANT USAGE ON SEQUENCE team.balance_snapshots_seq, team.payment_option_lists_seq TO finance, back_office;

ALTER TABLE team.events ENABLE ROW LEVEL SECURITY;
CREATE POLICY events_read ON team.events FOR SELECT TO support, finance, back_office USING (true);
CREATE POLICY events_charge ON team.events FOR INSERT TO support
  WITH CHECK (source IN ('intent', 'initiate', 'redirect', 'security'));
CREATE POLICY events_back_office ON team.events FOR INSERT TO back_office
  WITH CHECK (source IN ('callback', 'import', 'manual', 'security'));
`;
