// Indexes for the collections page at a year of history (issue 5 benchmark: a filtered, sorted page of
// 100 in <= 50 ms at p95). listCollections (main/collections/query.ts) splits a multi-status filter and
// the text search into arms, each an index range already in the sort order; these give each arm that order.
export const sql = `
-- currency filter, sorted by amount (ties by id: the rowid ends every index)
CREATE INDEX collections_currency_amount ON collections (currency, amount_minor);
-- status and/or currency filters, sorted by customer; also the covering count of status + currency
CREATE INDEX collections_currency_status_customer ON collections (currency, status, lower(customer_name));
CREATE INDEX collections_status_customer ON collections (status, lower(customer_name));
CREATE INDEX collections_currency_customer ON collections (currency, lower(customer_name));
-- status + currency, sorted by time
CREATE INDEX collections_status_currency_created ON collections (status, currency, created_at);
-- text prefix on a reference, newest first (covering: no table read to rank a month of matches)
CREATE INDEX collections_reference_lower_created ON collections (lower(merchant_reference), created_at);
DROP INDEX collections_internal_lower;
CREATE INDEX collections_internal_lower_created ON collections (lower(internal_reference), created_at);
`;
