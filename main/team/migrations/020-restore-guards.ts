// A lost intent's guard fingerprint comes back with it (issue 38, found by the team day's failover). An
// asynchronous failover takes team.charge_guards back in time with the events: the desk that charged a
// card in the lost tail put its intent back (team.restore_events, migration 15), but the repeat question
// (migration 12) had forgotten the card, and the same card and amount charged at another desk a minute
// later went through unasked.
//
// Where the fingerprint comes from: only the desk that charged ever had it. It is a keyed hash of the card
// number, amount and currency under a key every charging desk derives from the merchant's secret key
// (collections/charge/fingerprint.ts); the database holds it and not the key, so nothing here can be tried
// against card numbers. It cannot be made again later: the card is wiped once encrypted, and the record
// keeps only brand and last four. So a desk keeps the fingerprints of its own intents in memory for the
// guard window (team/own-guards.ts: never in its SQLite, where they would sit beside the card's last four
// and, in the keychain, the key: together a card number found by trying the few digits left), and puts
// each back with its intent.
//
// team.restore_events is the same as in migration 15, but an intent row may carry its guard:
//   "guard": {"fingerprint": <64 hex digits>, "charged_at": <ms since the epoch>, "confirmed_repeat": <bool>}
// - The intent and its guard go back in one transaction: no moment when the intent is back and its guard
//   not (another desk's charge of the card in between would pass unasked). An intent the record holds
//   already (another desk put it back without the guard, which only this desk had) answers 'present' and
//   gets its guard all the same.
// - Judged like team.guard_intent's own: only for a login that may write intents (support), a guard of an
//   intent row whose reference the record holds as an intent, 32 bytes, at most one per reference (a guard
//   of that reference already there stands), never later than now, and only within the repeat window
//   (an older one would ask nothing and be pruned). charged_by is the login putting it back, which is the
//   one that charged (no other desk holds the fingerprint); charged_at is the database's time of the
//   charge, as the desk was told it when its intent was created, so the question says when it happened.
// - Locks in guard_intent's order: the guards first (IN EXCLUSIVE MODE, held to commit), then the events'
//   write turn. A charge judged meanwhile waits, then sees the guard. Taken only when a row carries a
//   guard: serve's restores and others' never wait on the guards.
// A row carrying a guard that is not an intent, or a guard that is not as above, is refused with its
// reason, its event not put back (the desk lists it, as any refusal).
//
// Same owner (team_record_keeper), same grants: CREATE OR REPLACE keeps them; the function already may
// select, insert into and lock team.charge_guards (migration 12).
export const sql = `
CREATE OR REPLACE FUNCTION team.restore_events(events jsonb)
RETURNS TABLE (event_key text, seq bigint, outcome text, reason text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
#variable_conflict use_column
DECLARE
  d jsonb;
  src text;
  ev jsonb;
  got bigint;
  why text;
  g jsonb;
  fp bytea;
  charged timestamptz;
BEGIN
  IF jsonb_typeof(events) IS DISTINCT FROM 'array' THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'events: must be a JSON array';
  END IF;
  -- The guards before the write turn, as guard_intent takes them, when a row carries one.
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(events) AS x WHERE jsonb_typeof(x) = 'object' AND x ? 'guard') THEN
    LOCK TABLE team.charge_guards IN EXCLUSIVE MODE;
  END IF;
  -- The events' write turn, before any key is looked up (migration 15).
  LOCK TABLE team.events_write_turn IN EXCLUSIVE MODE;
  FOR d IN SELECT x FROM jsonb_array_elements(events) AS x LOOP
    src := d->>'source';
    why := NULL;
    g := CASE WHEN jsonb_typeof(d) = 'object' THEN d->'guard' END;
    fp := NULL;
    charged := NULL;
    BEGIN
      ev := CASE WHEN d->>'evidence' IS NULL THEN '{}'::jsonb ELSE (d->>'evidence')::jsonb END;
    EXCEPTION WHEN others THEN
      ev := NULL;
    END;
    IF g IS NOT NULL AND jsonb_typeof(g) <> 'null' THEN
      BEGIN
        fp := decode(g->>'fingerprint', 'hex');
        charged := to_timestamp((g->>'charged_at')::numeric / 1000);
      EXCEPTION WHEN others THEN
        fp := NULL;
      END;
      IF src IS DISTINCT FROM 'intent' THEN
        why := 'a guard goes back with its intent only';
      ELSIF NOT team.may_write_source(session_user, 'intent') THEN
        why := format('%s may not charge, so it puts back no guard', session_user);
      ELSIF fp IS NULL OR length(fp) <> 32 OR charged IS NULL OR jsonb_typeof(g->'confirmed_repeat') <> 'boolean' THEN
        why := 'guard: give the fingerprint as the 64 hex digits of an HMAC-SHA256, charged_at in ms and confirmed_repeat';
      END IF;
    END IF;
    IF why IS NOT NULL THEN
      NULL;
    ELSIF ev IS NULL OR jsonb_typeof(ev) <> 'object' THEN
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
      IF fp IS NOT NULL THEN
        PERFORM team.put_back_guard(d->>'merchant_reference', fp, charged, (g->>'confirmed_repeat')::boolean);
      END IF;
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
      IF fp IS NOT NULL THEN
        PERFORM team.put_back_guard(d->>'merchant_reference', fp, charged, (g->>'confirmed_repeat')::boolean);
      END IF;
      RETURN QUERY SELECT d->>'event_key', got, 'restored'::text, NULL::text;
    EXCEPTION
      WHEN unique_violation THEN
        -- The intent's reference was taken meanwhile by a new intent: that one stands (and its guard).
        RETURN QUERY SELECT d->>'event_key', NULL::bigint, 'refused'::text,
          format('reference %s has a newer intent in the team record', d->>'merchant_reference');
      WHEN check_violation OR not_null_violation OR invalid_text_representation OR numeric_value_out_of_range
        OR invalid_datetime_format OR datetime_field_overflow OR string_data_right_truncation
        OR invalid_parameter_value OR insufficient_privilege THEN
        RETURN QUERY SELECT d->>'event_key', NULL::bigint, 'refused'::text, SQLERRM;
    END;
  END LOOP;
END $fn$;

-- One intent's guard put back, called by restore_events only (under the guards' lock it holds): nothing
-- when the record holds no intent of the reference, a guard of it stands already, or the charge is older
-- than the repeat window; never dated after now.
CREATE FUNCTION team.put_back_guard(ref text, fp bytea, charged timestamptz, confirmed boolean) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE at timestamptz := clock_timestamp();
BEGIN
  charged := least(charged, at);
  IF charged <= at - team.repeat_window()
     OR NOT EXISTS (SELECT 1 FROM team.intents i WHERE i.merchant_reference = ref)
     OR EXISTS (SELECT 1 FROM team.charge_guards g WHERE g.merchant_reference = ref) THEN
    RETURN;
  END IF;
  INSERT INTO team.charge_guards (fingerprint, merchant_reference, charged_by, charged_at, confirmed_repeat)
  VALUES (fp, ref, session_user, charged, confirmed);
END $fn$;

CREATE INDEX charge_guards_reference ON team.charge_guards (merchant_reference);

GRANT CREATE ON SCHEMA team TO team_record_keeper;
ALTER FUNCTION team.put_back_guard(text, bytea, timestamptz, boolean) OWNER TO team_record_keeper;
REVOKE CREATE ON SCHEMA team FROM team_record_keeper;
REVOKE ALL ON FUNCTION team.put_back_guard(text, bytea, timestamptz, boolean) FROM PUBLIC;
`;
