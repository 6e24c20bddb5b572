// The composition root wires the ledger (collections/ledger.ts) to reconciliation: every event a desk
// stores re-classifies its collection in the append's transaction. Collections do not know reconcile;
// this is where the two meet. Every entry point that stores events calls it once (composeCore, the CLI).
import { wireLedger } from '../collections/ledger.js';
import { reconcileAfterAppend } from '../reconcile/incremental.js';
import { restsOnUncheckedSignature } from '../collections/query.js';

export function wireLedgerReconciliation(): void {
  wireLedger({
    // A collection resting on a signature a new team desk has not re-checked yet is reconciled by that
    // check once done (team/sync/signature-check.ts), never before: it must not count as matched meanwhile.
    afterAppend: (db, id) => {
      if (!restsOnUncheckedSignature(db, id)) reconcileAfterAppend(db, id);
    },
  });
}
