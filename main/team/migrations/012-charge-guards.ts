// The charge guards, team-wide (issue 28): the repeat-charge question and the daily limit are decided
// by PostgreSQL on the team record, not by one desk's memory or copy, so several desks charging at the
// same moment cannot each pass a guard the team as a whole would not.
//
// A desk creating an intent first calls team.guard_intent in the same transaction (team/intents.ts):
//
// - Repeat: the same card, amount and currency charged within five minutes at any desk is refused
//   (SQLSTATE P0001, DETAIL {"guard":"repeat", charged_by, charged_at}) unless the desk says the person
//   confirmed the repeat. The card is known only by a keyed fingerprint: an HMAC-SHA256 the desk
//   computes under a key every desk of the team derives from the merchant's secret key, which the
//   database never holds (collections/charge/fingerprint.ts), so nothing here can be turned back into a
//   card number by trying numbers. Fingerprints are kept in team.charge_guards only as long as the
//   question needs them (each guarded intent removes those older than the window plus a minute), apart
//   from the intents, the events and snapshots, which are kept for good; nobody but the function reads
//   them.
// - Daily limit: the team's total of today in the currency, team.collected_since (every intent since the
//   desk's start of day whose latest outcome is not FAILED, CANCELLED or REJECTED), plus this amount
//   must not pass the option's max_daily_amount, else refused (DETAIL {"guard":"daily_limit",
//   collected, max_daily}). The desk passes the day boundary (its local midnight) and the limit from its
//   cached payment option: the database holds no option of its own to judge by, and the day is the
//   desk's. day_start must lie within the last 26 hours (a day, a DST hour and clock skew).
//
// Both are decided under one lock: guard_intent takes team.charge_guards IN EXCLUSIVE MODE, held until
// the transaction that creates the intent commits, so two desks pressing Charge at the same instant are
// judged one after the other and the second sees the first's intent. Every intent already takes the
// events' write turn for its 'intent' event in the same transaction (migration 8), so this adds no
// real wait. Only the function (owned by team_record_keeper) can take that lock: no operator has a grant
// on the table. It gives up after 10 s (55P03: busy, try again).
//
// What it does not stop: a support login that skips the function and inserts an intent itself. The
// guard is the team's shared memory for honest desks racing each other; the service enforces its own
// daily limit, and who charged what is in the record.
export const sql = `
CREATE TABLE team.charge_guards (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- HMAC-SHA256 of the card number, amount and currency under the team's fingerprint key.
  fingerprint bytea NOT NULL CHECK (length(fingerprint) = 32),
  merchant_reference text NOT NULL,
  charged_by name NOT NULL,
  charged_at timestamptz NOT NULL,
  confirmed_repeat boolean NOT NULL
);
CREATE INDEX charge_guards_fingerprint ON team.charge_guards (fingerprint, charged_at DESC);
CREATE INDEX charge_guards_age ON team.charge_guards (charged_at);
REVOKE ALL ON team.charge_guards FROM PUBLIC;

-- Today's intents of a currency, for the daily limit.
CREATE INDEX intents_currency_created ON team.intents (currency, created_at);

CREATE FUNCTION team.repeat_window() RETURNS interval LANGUAGE sql IMMUTABLE AS $fn$ SELECT interval '5 minutes' $fn$;

-- The team's total of the intents of a currency created since a moment that have not failed: an intent
-- counts unless the latest outcome recorded for it (by seq) is FAILED, CANCELLED or REJECTED. Run with
-- the caller's rights (every operator group reads intents and events).
CREATE FUNCTION team.collected_since(cur text, since timestamptz) RETURNS bigint
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
  SELECT coalesce(sum(i.amount_minor), 0)::bigint
    FROM team.intents i
   WHERE i.currency = cur AND i.created_at >= since
     AND coalesce((SELECT e.status FROM team.events e
                    WHERE e.merchant_reference = i.merchant_reference
                      AND e.status IN ('COMPLETED', 'FAILED', 'CANCELLED', 'REJECTED')
                    ORDER BY e.seq DESC LIMIT 1), 'PENDING') NOT IN ('FAILED', 'CANCELLED', 'REJECTED')
$fn$;

CREATE FUNCTION team.guard_intent(ref text, amount bigint, cur text, card_fingerprint bytea,
                                  confirmed boolean, day_start timestamptz, max_daily bigint)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '10s' AS $fn$
DECLARE
  at timestamptz;
  prev record;
  collected bigint;
BEGIN
  IF ref IS NULL OR length(ref) NOT BETWEEN 1 AND 100 THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'merchant_reference: must be 1 to 100 characters';
  END IF;
  IF amount IS NULL OR amount <= 0 THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'amount_minor: must be a positive number of minor units';
  END IF;
  IF cur IS NULL OR cur !~ '^[A-Z]{3}$' THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'currency: must be three capital letters';
  END IF;
  IF card_fingerprint IS NOT NULL AND length(card_fingerprint) <> 32 THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'fingerprint: must be the 32 bytes of an HMAC-SHA256';
  END IF;
  IF (day_start IS NULL) <> (max_daily IS NULL) THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'day_start: give both the start of the day and the daily limit, or neither';
  END IF;
  IF max_daily IS NOT NULL AND max_daily <= 0 THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value', MESSAGE = 'max_daily: must be a positive number of minor units';
  END IF;

  -- One guarded intent at a time, team-wide, until this transaction ends.
  LOCK TABLE team.charge_guards IN EXCLUSIVE MODE;
  at := clock_timestamp();
  IF day_start IS NOT NULL AND (day_start > at + interval '5 minutes' OR day_start < at - interval '26 hours') THEN
    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
      MESSAGE = format('day_start: %s is not the start of a day that includes now (%s)', day_start, at);
  END IF;
  DELETE FROM team.charge_guards g WHERE g.charged_at < at - team.repeat_window() - interval '1 minute';

  IF max_daily IS NOT NULL THEN
    collected := team.collected_since(cur, day_start);
    IF collected + amount > max_daily THEN
      RAISE EXCEPTION USING ERRCODE = 'raise_exception',
        MESSAGE = format('daily limit: %s %s collected since %s, %s more would pass the limit of %s', collected, cur, day_start, amount, max_daily),
        DETAIL = json_build_object('guard', 'daily_limit', 'collected', collected, 'max_daily', max_daily, 'currency', cur)::text;
    END IF;
  END IF;

  IF card_fingerprint IS NOT NULL THEN
    IF NOT coalesce(confirmed, false) THEN
      SELECT g.charged_by, g.charged_at, g.merchant_reference INTO prev FROM team.charge_guards g
       WHERE g.fingerprint = card_fingerprint AND g.charged_at > at - team.repeat_window()
       ORDER BY g.charged_at DESC LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'raise_exception',
          MESSAGE = format('repeat charge: the same card and amount were charged by %s at %s', prev.charged_by, prev.charged_at),
          DETAIL = json_build_object('guard', 'repeat', 'charged_by', prev.charged_by, 'charged_at', prev.charged_at)::text;
      END IF;
    END IF;
    INSERT INTO team.charge_guards (fingerprint, merchant_reference, charged_by, charged_at, confirmed_repeat)
    VALUES (card_fingerprint, ref, session_user, at, coalesce(confirmed, false));
  END IF;
END $fn$;

-- What the function needs, and nothing more: the guard table (UPDATE is what LOCK TABLE asks), and to
-- read what collected_since reads (row-level security on events already lets team_record_keeper read).
GRANT SELECT, INSERT, UPDATE, DELETE ON team.charge_guards TO team_record_keeper;
GRANT SELECT (merchant_reference, amount_minor, currency, created_at) ON team.intents TO team_record_keeper;
GRANT SELECT (seq, merchant_reference, status) ON team.events TO team_record_keeper;

GRANT CREATE ON SCHEMA team TO team_record_keeper;
ALTER FUNCTION team.guard_intent(text, bigint, text, bytea, boolean, timestamptz, bigint) OWNER TO team_record_keeper;
REVOKE CREATE ON SCHEMA team FROM team_record_keeper;

REVOKE ALL ON FUNCTION team.repeat_window(), team.collected_since(text, timestamptz),
  team.guard_intent(text, bigint, text, bytea, boolean, timestamptz, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team.repeat_window(), team.collected_since(text, timestamptz) TO team_record_keeper;
GRANT EXECUTE ON FUNCTION team.collected_since(text, timestamptz) TO support, finance, back_office;
GRANT EXECUTE ON FUNCTION team.guard_intent(text, bigint, text, bytea, boolean, timestamptz, bigint) TO support;
`;
