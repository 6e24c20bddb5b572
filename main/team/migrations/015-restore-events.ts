// Putting back what the team record lost (issue 29). An asynchronous failover or a restore from last
// night's backup takes the record back in time: events committed after the point the new primary (or
// the backup) had are gone, although desks pulled them and serve acknowledged them. The witnesses (each
// desk, serve's journal of acknowledged callbacks) write them again through team.restore_events:
//
// - Exactly once by event key: the function takes the events' write turn first, so no writer comes
//   between its "is this key stored?" and its insert; a key stored already (another witness was
//   quicker) is answered 'present', never stored twice.
// - Who may restore what: an event of a source the caller's role may write anyway (a support desk its
//   own charge's events, a back_office desk its resolutions, serve its callbacks), or a signed event
//   (callback, import, redirect) that carries its evidence: the service's signatures over the bytes as
//   received. The database cannot check those (it holds no key), and need not: every desk checks every
//   signed event itself and believes nothing else (team/evidence.ts), so a forged one restored by a
//   support login settles nothing, exactly as one written by a back_office login today.
// - Marked: the evidence of a restored event gets a "restored" object, stamped here: who restored it
//   (session_user) and when (clock_timestamp()), with what the witness says it was (its seq, when it was
//   first recorded, by whom). The actor is, as for every event, the login that wrote this row: the
//   restorer. Only this function may write that mark (events_restored_mark refuses it from anyone
//   else), so a desk can tell a restoration from an event rewritten in place (team/sync/rollback.ts).
// - An intent comes back with its team.intents row (one charge per reference), whose creator is the
//   restorer; a reference taken meanwhile by a new intent keeps that one and refuses the old.
//
// The function belongs to team_record_keeper, like the write turn (migration 8), with only the grants it
// needs: insert into events and intents, read what their conflict checks and RETURNING read.
export const sql = `
CREATE FUNCTION team.refuse_restored_mark() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE marked boolean := false;
BEGIN
  IF current_user <> 'team_record_keeper' AND strpos(NEW.evidence, '"restored"') > 0 THEN
    BEGIN
      marked := (NEW.evidence::jsonb) ? 'restored';
    EXCEPTION WHEN others THEN
      marked := false; -- not JSON: no mark in it
    END;
    IF marked THEN
      RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
        MESSAGE = 'evidence.restored is written by team.restore_events only';
    END IF;
  END IF;
  RETURN NEW;
END $fn$;
CREATE TRIGGER events_restored_mark BEFORE INSERT ON team.events
  FOR EACH ROW WHEN (NEW.evidence IS NOT NULL) EXECUTE FUNCTION team.refuse_restored_mark();

-- Whether a login's role may write events of a source (the policies of migrations 2 and 4, as a question).
CREATE FUNCTION team.may_write_source(who name, src text) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
  SELECT (src IN ('intent', 'initiate', 'redirect', 'security') AND pg_has_role(who, 'support', 'MEMBER'))
      OR (src IN ('callback', 'import', 'manual', 'security') AND pg_has_role(who, 'back_office', 'MEMBER'))
      OR (src IN ('callback', 'security') AND pg_has_role(who, 'receiver', 'MEMBER'))
$fn$;

CREATE FUNCTION team.restore_events(events jsonb)
RETURNS TABLE (event_key text, seq bigint, outcome text, reason text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
#variable_conflict use_column
DECLARE
  d jsonb;
  src text;
  ev jsonb;
  got bigint;
  why text;
BEGIN
  IF jsonb_typeof(events) IS DISTINCT FROM 'array' THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'events: must be a JSON array';
  END IF;
  -- The events' write turn, before any key is looked up (see the top of the migration).
  LOCK TABLE team.events_write_turn IN EXCLUSIVE MODE;
  FOR d IN SELECT x FROM jsonb_array_elements(events) AS x LOOP
    src := d->>'source';
    why := NULL;
    BEGIN
      ev := CASE WHEN d->>'evidence' IS NULL THEN '{}'::jsonb ELSE (d->>'evidence')::jsonb END;
    EXCEPTION WHEN others THEN
      ev := NULL;
    END;
    IF ev IS NULL OR jsonb_typeof(ev) <> 'object' THEN
      why := 'its evidence is not a JSON object';
    ELSIF ev ? 'restored' THEN
      why := 'its evidence already carries a restoration mark';
    ELSIF NOT team.may_write_source(session_user, src)
      AND NOT (src IN ('callback', 'import') AND (ev ? 'hmac' OR ev ? 'rsa') AND d->>'payload' IS NOT NULL)
      AND NOT (src = 'redirect' AND ev ? 'query') THEN
      why := format('%s may not write %s events, and this one carries no signature of the service to prove it',
                    session_user, coalesce(src, 'unnamed'));
    END IF;
    IF why IS NOT NULL THEN
      RETURN QUERY SELECT d->>'event_key', NULL::bigint, 'refused'::text, why;
      CONTINUE;
    END IF;
    IF EXISTS (SELECT 1 FROM team.events e WHERE e.event_key = d->>'event_key') THEN
      RETURN QUERY SELECT d->>'event_key', NULL::bigint, 'present'::text, NULL::text;
      CONTINUE;
    END IF;
    ev := ev || jsonb_build_object('restored', jsonb_build_object(
      'by', session_user::text,
      'at', floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint,
      'seq', CASE WHEN jsonb_typeof(d->'lost_seq') = 'number' THEN d->'lost_seq' END,
      'recordedAt', CASE WHEN jsonb_typeof(d->'lost_recorded_at') = 'number' THEN d->'lost_recorded_at' END,
      'actor', CASE WHEN jsonb_typeof(d->'lost_actor') = 'string' THEN d->'lost_actor' END));
    BEGIN
      IF src = 'intent' THEN
        INSERT INTO team.intents (merchant_reference, amount_minor, currency, description)
        VALUES (d->>'merchant_reference', (d->>'amount_minor')::bigint, d->>'currency',
                coalesce((d->>'payload')::jsonb->>'description', ''));
      END IF;
      INSERT INTO team.events (event_key, merchant_reference, internal_reference, source, kind, status, amount_minor,
                               currency, signature, payload, note, payment_url, status_message, occurred_at, evidence)
      VALUES (d->>'event_key', d->>'merchant_reference', d->>'internal_reference', src, d->>'kind', d->>'status',
              (d->>'amount_minor')::bigint, d->>'currency', d->>'signature', d->>'payload', d->>'note',
              d->>'payment_url', d->>'status_message', (d->>'occurred_at')::timestamptz, ev::text)
      RETURNING team.events.seq INTO got;
      RETURN QUERY SELECT d->>'event_key', got, 'restored'::text, NULL::text;
    EXCEPTION
      WHEN unique_violation THEN
        -- The intent's reference was taken meanwhile by a new intent: that one stands.
        RETURN QUERY SELECT d->>'event_key', NULL::bigint, 'refused'::text,
          format('reference %s has a newer intent in the team record', d->>'merchant_reference');
      WHEN check_violation OR not_null_violation OR invalid_text_representation OR numeric_value_out_of_range
        OR invalid_datetime_format OR datetime_field_overflow OR string_data_right_truncation
        OR invalid_parameter_value OR insufficient_privilege THEN
        RETURN QUERY SELECT d->>'event_key', NULL::bigint, 'refused'::text, SQLERRM;
    END;
  END LOOP;
END $fn$;

GRANT INSERT (event_key, merchant_reference, internal_reference, source, kind, status, amount_minor, currency,
  signature, payload, note, payment_url, status_message, occurred_at, evidence) ON team.events TO team_record_keeper;
GRANT SELECT (seq) ON team.events TO team_record_keeper;
GRANT USAGE ON SEQUENCE team.events_seq TO team_record_keeper;
GRANT INSERT (merchant_reference, amount_minor, currency, description) ON team.intents TO team_record_keeper;
GRANT SELECT ON team.intents TO team_record_keeper;
CREATE POLICY events_restore ON team.events FOR INSERT TO team_record_keeper WITH CHECK (true);

GRANT CREATE ON SCHEMA team TO team_record_keeper;
ALTER FUNCTION team.restore_events(jsonb) OWNER TO team_record_keeper;
REVOKE CREATE ON SCHEMA team FROM team_record_keeper;
REVOKE ALL ON FUNCTION team.restore_events(jsonb), team.may_write_source(name, text), team.refuse_restored_mark() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.may_write_source(name, text) TO team_record_keeper;
GRANT EXECUTE ON FUNCTION team.restore_events(jsonb) TO support, finance, back_office, receiver;
`;
