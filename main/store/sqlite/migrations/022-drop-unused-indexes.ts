// Indexes that no statement of the app uses, kept up to date on every write for nothing (issue 40: the
// desk's file by table and index, test/bench/file-bytes.ts). EXPLAIN QUERY PLAN over every statement the
// tests prepare (test/bench/index-use.ts), on a fresh file and on a generated, ANALYZEd year, names none
// of them, and no query reads by what they hold:
// - collections_internal_reference (migration 001): nothing looks a collection up by its internal
//   reference as it is; the text filter's prefix reads lower(internal_reference) on
//   collections_internal_lower_created (migration 005). 20 bytes a collection.
// - collections_amount (migration 002): the amount sort is currency then amount (read/collections-page.ts
//   ORDER), on collections_currency_amount (migration 005); nothing filters by an amount. 19 bytes a
//   collection.
// - poll_runs_kind_started (migration 001): the movement reads poll runs by COALESCE(finished_at,
//   started_at), which this index cannot serve; the last run of a kind is poll_runs_kind_id (migration 004).
// Dropping an index loses no row; the team's snapshot check replays the migrations (team/bulk-schema.ts),
// so a new desk neither builds nor expects them.
export const sql = `
DROP INDEX collections_internal_reference;
DROP INDEX collections_amount;
DROP INDEX poll_runs_kind_started;
`;
