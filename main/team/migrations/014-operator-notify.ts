// A change to an operator is announced when it commits: NOTIFY team_operators, '<login>'. A signed-in
// desk listens (team/listen.ts, on the connection that already listens for events) and re-reads its own
// operator, so a new role or a disable reaches it within moments instead of at its next sign-in; an
// admin's open operator list re-reads on any login. A trigger rather than a line in each function: every
// way the row changes announces it (add, disable, enable, role, password, and an owner's UPDATE by
// hand). PostgreSQL delivers at commit and never on rollback, so a refused change says nothing. A
// notification can be lost (a listener reconnecting); desks also re-read on a timer (team/standing.ts).
export const sql = `
CREATE FUNCTION team.announce_operator_change() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  PERFORM pg_notify('team_operators', NEW.login);
  RETURN NULL;
END $fn$;
REVOKE ALL ON FUNCTION team.announce_operator_change() FROM PUBLIC;

CREATE TRIGGER operators_announce AFTER INSERT OR UPDATE ON team.operators
  FOR EACH ROW EXECUTE FUNCTION team.announce_operator_change();
`;
