// The composition root wires the ledger (collections/ledger.ts) to reconciliation: every event a desk
// stores re-classifies its collection in the append's transaction. Collections do not know reconcile;
// this is where the two meet. Every entry point that stores events calls it once (composeCore, the CLI).
import { wireLedger } from '../collections/ledger.js';
import { reconcileAfterAppend } from '../reconcile/incremental.js';

export function wireLedgerReconciliation(): void {
  wireLedger({ afterAppend: reconcileAfterAppend });
}
