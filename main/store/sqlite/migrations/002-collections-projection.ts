// Collections projection (issue 4): what each source says, review flags, and indexes for the
// collections table (sort by amount/reference/customer, text search by prefix, case-insensitive).
// flags is a bitmask, see FLAGS in main/collections/event-rules.ts. Never card data.
export const sql = `
ALTER TABLE collections ADD COLUMN redirect_status TEXT;
ALTER TABLE collections ADD COLUMN redirect_signature TEXT;
ALTER TABLE collections ADD COLUMN callback_status TEXT;
ALTER TABLE collections ADD COLUMN flags INTEGER NOT NULL DEFAULT 0;
ALTER TABLE collections ADD COLUMN final_changes INTEGER NOT NULL DEFAULT 0;
CREATE INDEX collections_amount ON collections (amount_minor, created_at);
CREATE INDEX collections_customer_lower ON collections (lower(customer_name), created_at);
CREATE INDEX collections_reference_lower ON collections (lower(merchant_reference));
CREATE INDEX collections_internal_lower ON collections (lower(internal_reference));
CREATE INDEX collections_flagged ON collections (created_at) WHERE flags <> 0;
CREATE INDEX collections_status_amount ON collections (status, amount_minor);
CREATE INDEX collection_events_orphans ON collection_events (received_at) WHERE collection_id IS NULL;
`;
