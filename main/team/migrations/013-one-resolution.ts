// A person's decision is one decision, taken by the database on the team record (issue 28).
//
// 1. One resolution per exception. Two back-office desks resolving the same exception at the same
//    moment both checked "open" on their own copies; both were stored, and each desk then showed the
//    other's note. The database does not know the reconciliation rules (what is an exception is the
//    desks' classify.ts), but it knows whether anything happened to a reference since it was last
//    resolved, and that is what decides a race: a resolution (source manual, kind resolution) is
//    refused when the reference's latest event before it, by seq, is itself a resolution. Nothing new
//    happened since that one, so that one stands; once a new event arrives (a callback, a changed
//    final status, a security event), the reference may be resolved again, once. Whether there is
//    anything to resolve at all stays the desk's check (its copy must show an open exception or an
//    unresolved orphan). The same rule covers an orphan callback: a resolution of a reference no
//    intent has, keyed by the same merchant_reference.
//
//    Why it holds under a race: every INSERT into team.events first takes the table's write turn
//    (migration 8, a BEFORE statement trigger), held until commit. This check runs after the row,
//    in an AFTER ROW trigger, so it sees the rows a previous writer committed before it released the
//    turn (in READ COMMITTED each statement of a PL/pgSQL function takes a fresh snapshot) and the
//    rows this statement inserted before it. A transaction at REPEATABLE READ or SERIALIZABLE reads
//    from a snapshot taken earlier and could miss the other desk's resolution, so a resolution is
//    accepted only at READ COMMITTED (the desks' default). AFTER, not BEFORE: row-level security and
//    the constraints speak first, so a login that may not resolve at all is told that, not this.
//
//    A resolution put back by a witness after the record went back in time (team.restore_events,
//    migration 15, the only writer of its "restored" mark) is not checked: it was decided when it was
//    first recorded.
//
//    The refusal is SQLSTATE 55000 (object_not_in_prerequisite_state) with DETAIL {"resolved_seq": N}:
//    the desk reads who (actor), when (recorded_at) and their note from that event itself, with its
//    own grants (team/resolutions.ts). The trigger says no more than the seq, so a login that may read
//    no note (serve's) learns nothing from trying.
//
// 2. A person's event carries no status. A `manual` row with status COMPLETED made every desk show the
//    payment COMPLETED: only the service's signature settles a payment. New rows with a status are
//    refused (CHECK, NOT VALID: the rows an older record holds stay as they were, append-only, and each
//    desk stores such a row as kind bad_signature, its status ignored and flagged: team/evidence.ts).
//    A CHECK and not a trigger: nobody, the owner included, can turn it off by disabling triggers.
//
// The function belongs to team_record_keeper (migration 8), which may read the events' seq,
// reference, source and kind, and nothing it does not need.
export const sql = `
ALTER TABLE team.events ADD CONSTRAINT events_manual_carries_no_status
  CHECK (source <> 'manual' OR status IS NULL) NOT VALID;

CREATE FUNCTION team.one_resolution() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  before_it record;
BEGIN
  -- A resolution a witness puts back after the record went back in time (team.restore_events, migration
  -- 15, the only writer of the mark) was decided when it was first recorded: it is history, not a new decision.
  IF NEW.evidence IS NOT NULL AND strpos(NEW.evidence, '"restored"') > 0 THEN
    BEGIN
      IF (NEW.evidence::jsonb) ? 'restored' THEN RETURN NULL; END IF;
    EXCEPTION WHEN others THEN
      NULL; -- not JSON: no mark in it
    END;
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION USING ERRCODE = 'object_not_in_prerequisite_state',
      MESSAGE = format('a resolution is recorded only in a READ COMMITTED transaction (this one is %s): only there does the check see every resolution committed before it',
                       current_setting('transaction_isolation'));
  END IF;
  SELECT e.seq, e.source, e.kind INTO before_it FROM team.events e
   WHERE e.merchant_reference = NEW.merchant_reference AND e.seq < NEW.seq
   ORDER BY e.seq DESC LIMIT 1;
  IF FOUND AND before_it.source = 'manual' AND before_it.kind = 'resolution' THEN
    RAISE EXCEPTION USING ERRCODE = 'object_not_in_prerequisite_state',
      MESSAGE = format('merchant_reference: %s was already resolved (seq %s) and nothing happened to it since; one resolution stands',
                       NEW.merchant_reference, before_it.seq),
      DETAIL = json_build_object('resolved_seq', before_it.seq)::text;
  END IF;
  RETURN NULL;
END $fn$;
CREATE TRIGGER events_one_resolution AFTER INSERT ON team.events FOR EACH ROW
  WHEN (NEW.source = 'manual' AND NEW.kind = 'resolution') EXECUTE FUNCTION team.one_resolution();

GRANT SELECT (seq, merchant_reference, source, kind) ON team.events TO team_record_keeper;
GRANT CREATE ON SCHEMA team TO team_record_keeper;
ALTER FUNCTION team.one_resolution() OWNER TO team_record_keeper;
REVOKE CREATE ON SCHEMA team FROM team_record_keeper;
REVOKE ALL ON FUNCTION team.one_resolution() FROM PUBLIC;
`;
