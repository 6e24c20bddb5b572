// The reconciliation table's two full indexes on outcome become partial ones. Nine collections in ten
// are 'matched', and nothing looks one up by that outcome: the exceptions queue reads open exceptions
// (is_exception = 1) and the other outcomes, and the summary counts matched as the rest. Kept whole,
// the two indexes cost a full recompute of a million collections more than the rows themselves (every
// row an entry in each, in outcome order, while rows go in by id); partial, a tenth of that. Queries
// must repeat an index's WHERE term word for word for the planner to use it (main/reconcile/exceptions.ts,
// full-sql.ts); test/reconcile/full.test.ts checks that they do.
export const sql = `
DROP INDEX reconciliation_exception;
DROP INDEX reconciliation_outcome;
CREATE INDEX reconciliation_open ON reconciliation (outcome) WHERE is_exception = 1;
CREATE INDEX reconciliation_notable ON reconciliation (outcome) WHERE outcome <> 'matched';
`;
