// Indexes for the collections page at a year of history (issue 5 benchmark: a filtered, sorted page of
// 100 in <= 50 ms at p95), chosen against what each stored callback costs: every index holding `status`
// is rewritten when a callback settles a collection, and one keyed by a random value (amount, customer)
// dirties a page per callback. So: none of those beyond (status, created_at) and (status, currency,
// created_at), whose new entries land together at the end. The page (main/store/sqlite/read/collections-page.ts)
// splits a multi-status filter into one arm per status only for the time sort, and the text search into
// one arm per column; each arm is an index range already in the sort order.
export const sql = `
-- currency filter sorted by amount or customer (ties by id: the rowid ends every index)
CREATE INDEX collections_currency_amount ON collections (currency, amount_minor);
CREATE INDEX collections_currency_customer ON collections (currency, lower(customer_name));
-- status + currency sorted by time, and their count from the index alone
CREATE INDEX collections_status_currency_created ON collections (status, currency, created_at);
-- text prefix on a reference, newest first (covering: no table read to rank a month of matches)
CREATE INDEX collections_reference_lower_created ON collections (lower(merchant_reference), created_at);
DROP INDEX collections_internal_lower;
CREATE INDEX collections_internal_lower_created ON collections (lower(internal_reference), created_at);
-- (status, amount) put a random page of a million-row index in every callback's commit; a status
-- filter sorted by amount walks collections_amount (or collections_currency_amount) instead.
DROP INDEX collections_status_amount;
`;
