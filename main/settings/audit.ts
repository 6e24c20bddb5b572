// The record of who the operator was before and after each change of the operator name (the name put
// on every payment and resolution). The renderer may change the name, so the main process records every
// change, in the same transaction as the change itself; the table is append-only (store migration 009,
// store/sqlite/settings-audit.ts).
import type { Db } from '../store/sqlite/connection.js';
import { insertOperatorNameChange } from '../store/sqlite/settings-audit.js';

export { operatorNameChanges, type OperatorNameChange } from '../store/sqlite/settings-audit.js';

/** Records a change of the operator name; call inside the transaction that writes it. Same name: nothing. */
export function recordOperatorNameChange(db: Db, from: string | null, to: string, at: number): void {
  if (from === to) return;
  insertOperatorNameChange(db, from, to, at);
}
