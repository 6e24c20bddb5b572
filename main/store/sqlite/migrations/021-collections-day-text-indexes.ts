// A text search sorted by time without walking every match (issue 31: a page of 100 of a year in
// <= 8 ms at p95). A prefix of a reference made in time order ("MD-202603") matches a month, ~85,000
// entries of collections_reference_lower_created (migration 005), and the newest 100 of them could be
// anywhere in that range, so the page walked all of it (5 ms and more of CPU). Keyed by the day first,
// the same prefix is a small range within each day: the page (read/collections-page.ts) walks the days
// newest (or oldest) first, one seek each, sorts only within a day, and stops once it has its rows. The
// day is the created_at of an integer time divided by 86,400,000 (SQLite's integer division, monotone
// in created_at), NULL for any other value, which the page reads apart. Only the two columns a
// collection's intent fixes for good: an update never rewrites these entries (internal_reference is
// set by the projection and keeps the bound plan).
//
// collections_reference_lower (migration 002) is dropped: collections_reference_lower_created
// (migration 005) begins with the same expression and serves every query it served.
// The page writes the day expression exactly as here (read/collections-page.ts DAY_OF), or SQLite would
// not see that the index holds it.
export const sql = `
CREATE INDEX collections_day_reference ON collections
  ((CASE WHEN typeof(created_at) = 'integer' THEN created_at / 86400000 END), lower(merchant_reference), created_at);
CREATE INDEX collections_day_customer ON collections
  ((CASE WHEN typeof(created_at) = 'integer' THEN created_at / 86400000 END), lower(customer_name), created_at);
DROP INDEX collections_reference_lower;
`;
