// What a desk needs to check a signed event again by itself (team/evidence.ts): for a callback the
// signature headers as received (its body is the payload), for a redirect the query as captured. A
// writer's `signature` column is its own claim; each desk believes only its own check of this.
//
// The evidence is part of what the hash chain covers (migration 10): team.event_canonical gets it
// appended at the end, as team/chain.ts CANONICAL_COLUMNS does. Every row stored before has none, and
// trailing nulls are dropped, so their canonical text and hashes stay as they are. CREATE OR REPLACE
// keeps the function's owner and grants.
export const sql = `
ALTER TABLE team.events ADD COLUMN evidence text CHECK (length(evidence) <= 20000);
GRANT INSERT (evidence) ON team.events TO support, back_office, receiver;

CREATE OR REPLACE FUNCTION team.event_canonical(e team.events) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT '[' || regexp_replace(array_to_string(ARRAY[
    coalesce(to_json(e.seq::text)::text, 'null'),
    coalesce(to_json(e.event_key)::text, 'null'),
    coalesce(to_json(e.merchant_reference)::text, 'null'),
    coalesce(to_json(e.internal_reference)::text, 'null'),
    coalesce(to_json(e.source)::text, 'null'),
    coalesce(to_json(e.kind)::text, 'null'),
    coalesce(to_json(e.status)::text, 'null'),
    coalesce(to_json(e.amount_minor::text)::text, 'null'),
    coalesce(to_json(e.currency)::text, 'null'),
    coalesce(to_json(e.signature)::text, 'null'),
    coalesce(to_json(e.payload)::text, 'null'),
    coalesce(to_json(e.note)::text, 'null'),
    coalesce(to_json(e.payment_url)::text, 'null'),
    coalesce(to_json(e.status_message)::text, 'null'),
    coalesce(to_json(floor(extract(epoch FROM e.occurred_at) * 1000)::bigint::text)::text, 'null'),
    coalesce(to_json(floor(extract(epoch FROM e.recorded_at) * 1000)::bigint::text)::text, 'null'),
    coalesce(to_json(e.actor::text)::text, 'null'),
    coalesce(to_json(e.evidence)::text, 'null')
  ], ','), '(,null)+$', '') || ']'
$fn$;
`;
