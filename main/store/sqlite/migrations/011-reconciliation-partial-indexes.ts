// The reconciliation table's full index on outcome becomes a partial one (migration 010 did the same for
// the exception index). Nine collections in ten are 'matched', and nothing looks one up by that outcome:
// the exceptions queue reads open exceptions (reconciliation_open, migration 010) and the other outcomes,
// and the summary counts matched as the rest. Kept whole, the index cost a full recompute of a million
// collections more than the rows themselves (every row an entry, in outcome order, while rows go in by id);
// partial, a tenth of that. Queries must repeat an index's WHERE term word for word for the planner to use
// it (main/reconcile/exceptions.ts, reconcile/full-pass-sql.ts); test/reconcile/full.test.ts checks that they do.
export const sql = `
DROP INDEX reconciliation_outcome;
CREATE INDEX reconciliation_notable ON reconciliation (outcome) WHERE outcome <> 'matched';
`;
