// The composition root wires the ledger (collections/ledger.ts) to reconciliation: every event a desk
// stores re-classifies its collection in the append's transaction; a team desk's pulled batch, once at
// its end; a bulk copy of the team's history, all at once. The team sync applies through these (house:
// the sync never imports reconcile). Collections do not know reconcile;
// this is where the two meet. Every entry point that stores events calls it once (composeCore, the CLI).
import { wireLedger } from '../collections/ledger.js';
import { reconcileAfterAppend, reconcileOnceAfter } from '../reconcile/incremental.js';
import { reconcileAll } from '../reconcile/reconcile.js';
import { restsOnUncheckedSignature } from '../collections/query.js';

export function wireLedgerReconciliation(): void {
  wireLedger({
    // A collection resting on a signature a new team desk has not re-checked yet is reconciled by that
    // check once done (team/sync/signature-check.ts), never before: it must not count as matched meanwhile.
    afterAppend: (db, id) => {
      if (!restsOnUncheckedSignature(db, id)) reconcileAfterAppend(db, id);
    },
    onceAfter: (db, fn) => reconcileOnceAfter(db, fn),
    all: (db, o) => reconcileAll(db, o),
  });
}
