// Less work per inserted event in the BEFORE INSERT row triggers of team.events, the same rows stored
// (issue 31: `serve` at 10,000 callbacks a second). Every event, whoever writes it, goes through these
// triggers under the events' write turn, so their cost per row bounds how many events the team can
// commit a second. Measured with 10,000 serve-like callback rows (payload and evidence, about 1.5 KB a
// row) in one insert, PostgreSQL's CPU per row 39-40 µs before, 33 after:
//
// 1. events_restored_mark (migration 15) fired for every event with evidence (every callback) only to
//    find, in PL/pgSQL, that its evidence holds no '"restored"': a function call with its own settings
//    (SET search_path) and NEW handed over and back, about 3 µs a row. The same test is now the
//    trigger's WHEN condition, so the function runs only for evidence that mentions "restored" and
//    decides exactly as before (it looks at nothing else first: the current_user test is inside).
//
// 2. events_zz_chain (migration 10) found the previous row's hash as the greatest seq below the new
//    one, a backward index scan with a LIMIT, about 3 µs more a row than asking for seq - 1: the
//    previous row is that one whenever the sequence left no gap (a rolled-back insert, a sequence
//    cached by another session), which is nearly always. Asked first, and the old question only when
//    there is no row seq - 1, so prev_hash is still the hash of the greatest seq below, as before.
//    CREATE OR REPLACE keeps the function's owner (team_operator_admin) and grants.
export const sql = `
DROP TRIGGER events_restored_mark ON team.events;
CREATE TRIGGER events_restored_mark BEFORE INSERT ON team.events
  FOR EACH ROW WHEN (NEW.evidence IS NOT NULL AND strpos(NEW.evidence, '"restored"') > 0)
  EXECUTE FUNCTION team.refuse_restored_mark();

CREATE OR REPLACE FUNCTION team.chain_event() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE prev bytea;
BEGIN
  -- events_stamp fired first and holds the turn that orders seq: no other writer's row comes between.
  -- Integers: a row at seq - 1 is the greatest below; without one (a gap), the greatest below is looked for.
  SELECT e.hash INTO prev FROM team.events e WHERE e.seq = NEW.seq - 1;
  IF NOT FOUND THEN
    SELECT e.hash INTO prev FROM team.events e WHERE e.seq < NEW.seq ORDER BY e.seq DESC LIMIT 1;
  END IF;
  NEW.prev_hash := coalesce(prev, team.chain_genesis());
  NEW.hash := team.chain_step(NEW.prev_hash, team.event_canonical(NEW));
  RETURN NEW;
END $fn$;
`;
