// Operator management for admins, as SECURITY DEFINER functions owned by team_operator_admin
// (CREATEROLE, not superuser). Each acts only on logins listed in team.operators, so an admin cannot
// use them on the schema owner or any other role. A password arrives as a SCRAM-SHA-256 verifier
// computed by the client (as psql's \\password does): plain text never reaches the server, its
// statement log or pg_stat_activity.
export const sql = `
CREATE FUNCTION team.check_operator_role(operator_role text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  IF operator_role IS NULL OR operator_role NOT IN ('support', 'finance', 'back_office', 'admin') THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
      MESSAGE = format('role must be one of support, finance, back_office, admin (got %s)', coalesce(quote_literal(operator_role), 'nothing'));
  END IF;
END $fn$;

CREATE FUNCTION team.check_password_verifier(verifier text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  IF verifier IS NULL OR verifier !~ '^SCRAM-SHA-256\\$[0-9]+:[A-Za-z0-9+/=]+\\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$' THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
      MESSAGE = 'password must arrive as a SCRAM-SHA-256 verifier computed by the client; plain text is refused';
  END IF;
END $fn$;

-- The operator row, locked for the change; refuses a login that is not a team operator.
CREATE FUNCTION team.lock_operator(operator_login text) RETURNS team.operators
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  op team.operators;
BEGIN
  SELECT * INTO op FROM team.operators o WHERE o.login = operator_login FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'undefined_object', MESSAGE = format('login: no operator %s in this team', quote_literal(operator_login));
  END IF;
  RETURN op;
END $fn$;

-- Refuses a change that would leave no enabled admin, so the team can always manage itself.
CREATE FUNCTION team.keep_an_admin(operator_login text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM team.operators o
                 WHERE o.role = 'admin' AND o.disabled_at IS NULL AND o.login <> operator_login) THEN
    RAISE EXCEPTION USING ERRCODE = 'object_in_use',
      MESSAGE = format('login: %s is the last enabled admin; add another admin first', operator_login);
  END IF;
END $fn$;

CREATE FUNCTION team.add_operator(operator_login text, operator_role text, password_verifier text, display_name text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  IF operator_login IS NULL OR operator_login !~ '^[a-z][a-z0-9_]{1,62}$' OR operator_login LIKE 'pg\\_%' THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
      MESSAGE = format('login must be 2 to 63 lower-case letters, digits or _, starting with a letter and not with pg_ (got %s)', coalesce(quote_literal(operator_login), 'nothing'));
  END IF;
  PERFORM team.check_operator_role(operator_role);
  PERFORM team.check_password_verifier(password_verifier);
  IF display_name IS NULL OR length(btrim(display_name)) = 0 OR length(display_name) > 200 THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'display_name must be 1 to 200 characters';
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = operator_login) THEN
    RAISE EXCEPTION USING ERRCODE = 'duplicate_object',
      MESSAGE = format('login: %s already exists on this server; choose another login', quote_literal(operator_login));
  END IF;
  EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', operator_login, password_verifier, operator_role);
  INSERT INTO team.operators (login, role, display_name) VALUES (operator_login, operator_role, btrim(display_name));
END $fn$;

CREATE FUNCTION team.disable_operator(operator_login text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  op team.operators := team.lock_operator(operator_login);
BEGIN
  IF op.role = 'admin' THEN PERFORM team.keep_an_admin(operator_login); END IF;
  EXECUTE format('ALTER ROLE %I NOLOGIN', operator_login);
  UPDATE team.operators o SET disabled_at = clock_timestamp(), changed_at = clock_timestamp(), changed_by = session_user
   WHERE o.login = operator_login;
  -- Sessions already open end now rather than at their next sign-in (needs pg_signal_backend, see migration 2).
  IF pg_has_role('pg_signal_backend', 'MEMBER') THEN
    PERFORM pg_terminate_backend(a.pid) FROM pg_stat_activity a WHERE a.usename = operator_login AND a.pid <> pg_backend_pid();
  END IF;
END $fn$;

CREATE FUNCTION team.enable_operator(operator_login text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  op team.operators := team.lock_operator(operator_login);
BEGIN
  EXECUTE format('ALTER ROLE %I LOGIN', op.login);
  UPDATE team.operators o SET disabled_at = NULL, changed_at = clock_timestamp(), changed_by = session_user
   WHERE o.login = operator_login;
END $fn$;

CREATE FUNCTION team.set_operator_role(operator_login text, operator_role text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  op team.operators := team.lock_operator(operator_login);
BEGIN
  PERFORM team.check_operator_role(operator_role);
  IF op.role = operator_role THEN RETURN; END IF;
  IF op.role = 'admin' THEN PERFORM team.keep_an_admin(operator_login); END IF;
  EXECUTE format('REVOKE %I FROM %I', op.role, operator_login);
  EXECUTE format('GRANT %I TO %I', operator_role, operator_login);
  UPDATE team.operators o SET role = operator_role, changed_at = clock_timestamp(), changed_by = session_user
   WHERE o.login = operator_login;
END $fn$;

CREATE FUNCTION team.set_operator_password(operator_login text, password_verifier text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  op team.operators := team.lock_operator(operator_login);
BEGIN
  PERFORM team.check_password_verifier(password_verifier);
  EXECUTE format('ALTER ROLE %I PASSWORD %L', op.login, password_verifier);
  UPDATE team.operators o SET changed_at = clock_timestamp(), changed_by = session_user WHERE o.login = operator_login;
END $fn$;

-- Handing the functions to team_operator_admin needs membership in it, which a superuser has and a
-- database owner with CREATEROLE (a managed server's usual migrator) must first grant itself.
DO $do$
BEGIN
  IF NOT pg_has_role('team_operator_admin', 'MEMBER') THEN
    EXECUTE format('GRANT team_operator_admin TO %I', current_user);
  END IF;
EXCEPTION WHEN unique_violation THEN
  NULL; -- granted meanwhile by a migration of another database
END $do$;

-- A non-superuser may hand an object only to a role that may create in its schema: granted for the
-- hand-over alone.
GRANT CREATE ON SCHEMA team TO team_operator_admin;
ALTER FUNCTION team.add_operator(text, text, text, text) OWNER TO team_operator_admin;
ALTER FUNCTION team.disable_operator(text) OWNER TO team_operator_admin;
ALTER FUNCTION team.enable_operator(text) OWNER TO team_operator_admin;
ALTER FUNCTION team.set_operator_role(text, text) OWNER TO team_operator_admin;
ALTER FUNCTION team.set_operator_password(text, text) OWNER TO team_operator_admin;
REVOKE CREATE ON SCHEMA team FROM team_operator_admin;

REVOKE ALL ON FUNCTION team.check_operator_role(text), team.check_password_verifier(text), team.lock_operator(text),
  team.keep_an_admin(text), team.add_operator(text, text, text, text), team.disable_operator(text),
  team.enable_operator(text), team.set_operator_role(text, text), team.set_operator_password(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.check_operator_role(text), team.check_password_verifier(text), team.lock_operator(text),
  team.keep_an_admin(text) TO team_operator_admin;
GRANT EXECUTE ON FUNCTION team.add_operator(text, text, text, text), team.disable_operator(text),
  team.enable_operator(text), team.set_operator_role(text, text), team.set_operator_password(text, text) TO admin;
GRANT SELECT, INSERT, UPDATE ON team.operators TO team_operator_admin;
`;
