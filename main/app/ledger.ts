// The ledger (collections/ledger.ts) composed on reconciliation, in one place: every event a desk stores
// re-classifies its collection in the append's transaction; a team desk's pulled batch, once at its end;
// a bulk copy of the team's history, all at once. The team sync applies through the ledger it is given
// (house: the sync never imports reconcile). Collections do not know reconcile; this is where the two
// meet. Each process's composition root calls composeLedger once (composeCore, the CLI's withWorkspace)
// and passes the ledger, and the reconciler under it, to everything that stores or reconciles events.
import { createLedger, type Ledger } from '../collections/ledger.js';
import { createReconciler, type Reconciler } from '../reconcile/incremental.js';
import { reconcileAll } from '../reconcile/reconcile.js';
import { restsOnUncheckedSignature } from '../collections/query.js';

/** A process's ledger and the reconciler it runs (its clock per connection, its sweep, its group route). */
export interface ComposedLedger {
  ledger: Ledger;
  reconciler: Reconciler;
}

export function composeLedger(reconciler: Reconciler = createReconciler()): ComposedLedger {
  const ledger = createLedger({
    // A collection resting on a signature a new team desk has not re-checked yet is reconciled by that
    // check once done (team/sync/signature-check.ts), never before: it must not count as matched meanwhile.
    afterAppend: (db, id) => {
      if (!restsOnUncheckedSignature(db, id)) reconciler.afterAppend(db, id);
    },
    onceAfter: (db, fn) => reconciler.onceAfter(db, fn),
    all: (db, o) => reconcileAll(db, o),
  });
  return { ledger, reconciler };
}
