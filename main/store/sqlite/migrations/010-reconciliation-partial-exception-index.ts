// Every reconciled callback moved its row in reconciliation_exception (is_exception, outcome) twice: out
// of (0, 'pending') and into (0, 'matched'), two random pages of a million-row index in each commit,
// although that index is only ever searched for the open exceptions (is_exception = 1, a few percent of
// the rows) and for the resolved ones. Two partial indexes answer those same reads and hold only their
// rows, so a collection that is and stays no exception (most callbacks) writes neither.
// - reconciliation_open: the open exceptions (listExceptions, the counts by kind, the summary's count).
// - reconciliation_resolved: exceptions a person resolved (the summary's "resolved" count), which
//   otherwise would walk every exception-kind row of reconciliation_outcome.
export const sql = `
CREATE INDEX reconciliation_open ON reconciliation (outcome) WHERE is_exception = 1;
CREATE INDEX reconciliation_resolved ON reconciliation (outcome) WHERE is_exception = 0 AND resolved_by_event_id IS NOT NULL;
DROP INDEX reconciliation_exception;
`;
