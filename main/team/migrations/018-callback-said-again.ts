// A callback whose body equals one the record holds, judged by the database (docs/team.md, "The service said
// it again"). Its key was the body's digest, so the service changing a final status back to one it held
// before (COMPLETED, FAILED, COMPLETED, FAILED: the second FAILED byte for byte the first) was stored once,
// as a repeat, and every desk kept the status the service had left. Now such a delivery is
//
// - a repeat (nothing stored) when the reference's latest callback status, the newest event of source
//   callback or import with a status, is its own;
// - said again otherwise: stored under `<its key>:<n>`, n the first of 2, 3, ... not in the record.
//
// team.callback_keys answers, for rows a writer is about to insert, the key to insert each under, or NULL
// when nothing is to be stored: rows judged in the order given, against the record as committed and the
// rows before them in the call. Only a key of the form callback:<reference>:<64 hex digits> of a callback
// or import is judged; any other row gets its own key, or NULL when that key is stored (what
// team.events_stored answered, which serve's statement asked before).
//
// It takes the events' write turn first, as an INSERT does (migration 8), and holds it to commit: the
// insert that follows in the same statement draws its seqs under it, so no writer commits between the
// question and the insert. Without it, two serve instances (or a serve restarted between its commit and
// its answer, whose retry comes in at once) could both find the latest status another and store the body
// twice, or judge against a status another writer was committing. Each statement inside the function
// sees what committed before the turn was taken (READ COMMITTED, a VOLATILE function).
//
// SECURITY DEFINER, owned by team_record_keeper (which already reads event_key, seq, merchant_reference,
// source and status: migrations 8, 12, 13): serve's login reads no key or reference, and learns here only,
// for a body it holds and signed itself, whether it is new, a repeat or said again and under which number.
export const sql = `
CREATE FUNCTION team.callback_keys(keys text[], refs text[], sources text[], statuses text[]) RETURNS text[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' AS $fn$
DECLARE
  answer text[] := '{}';
  -- The latest callback status of each reference this call stored a row for (after the record's).
  latest jsonb := '{}';
  i integer;
  k text;
  ref text;
  last text;
  n integer;
BEGIN
  LOCK TABLE team.events_write_turn IN EXCLUSIVE MODE;
  FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
    k := keys[i];
    ref := refs[i];
    IF k IS NULL OR ref IS NULL OR statuses[i] IS NULL OR sources[i] NOT IN ('callback', 'import')
       OR left(k, length(ref) + 10) <> 'callback:' || ref || ':' OR length(k) <> length(ref) + 74
       OR right(k, 64) !~ '^[0-9a-f]{64}$' THEN
      -- Not a callback body's key: stored under its own key unless that is stored.
      IF k IS NOT NULL AND (k = ANY (answer) OR EXISTS (SELECT 1 FROM team.events e WHERE e.event_key = k)) THEN
        answer := answer || NULL::text;
      ELSE
        answer := answer || k;
      END IF;
      CONTINUE;
    END IF;
    IF NOT (k = ANY (answer)) AND NOT EXISTS (SELECT 1 FROM team.events e WHERE e.event_key = k) THEN
      answer := answer || k; -- the first time this body is said
      latest := jsonb_set(latest, ARRAY[ref], to_jsonb(statuses[i]));
      CONTINUE;
    END IF;
    last := latest ->> ref;
    IF last IS NULL THEN
      SELECT e.status INTO last FROM team.events e
       WHERE e.merchant_reference = ref AND e.source IN ('callback', 'import') AND e.status IS NOT NULL
       ORDER BY e.seq DESC LIMIT 1;
    END IF;
    IF last = statuses[i] THEN
      answer := answer || NULL::text; -- a repeat: the service says again what is the latest
      CONTINUE;
    END IF;
    n := 2;
    WHILE (k || ':' || n) = ANY (answer) OR EXISTS (SELECT 1 FROM team.events e WHERE e.event_key = k || ':' || n) LOOP
      n := n + 1;
    END LOOP;
    answer := answer || (k || ':' || n); -- said again after another status
    latest := jsonb_set(latest, ARRAY[ref], to_jsonb(statuses[i]));
  END LOOP;
  RETURN answer;
END $fn$;

GRANT CREATE ON SCHEMA team TO team_record_keeper;
ALTER FUNCTION team.callback_keys(text[], text[], text[], text[]) OWNER TO team_record_keeper;
REVOKE CREATE ON SCHEMA team FROM team_record_keeper;
REVOKE ALL ON FUNCTION team.callback_keys(text[], text[], text[], text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.callback_keys(text[], text[], text[], text[]) TO receiver, back_office;
`;
