// The record of who the operator was before and after each change of the operator name (the name put
// on every payment and resolution). The renderer may change the name, so the main process records every
// change, in the same transaction as the change itself; the table is append-only (migration 010).
import type { Db } from '../store/sqlite/connection.js';

export interface OperatorNameChange {
  from: string | null;
  to: string;
  /** Epoch ms. */
  at: number;
}

/** Records a change of the operator name; call inside the transaction that writes it. Same name: nothing. */
export function recordOperatorNameChange(db: Db, from: string | null, to: string, at: number): void {
  if (from === to) return;
  db.prepare(
    "INSERT INTO settings_audit (setting, old_value, new_value, changed_at) VALUES ('operatorName', ?, ?, ?)",
  ).run(from, to, at);
}

/** The latest changes of the operator name, newest first. */
export function operatorNameChanges(db: Db, limit = 20): OperatorNameChange[] {
  const rows = db
    .prepare(
      "SELECT old_value AS 'from', new_value AS 'to', changed_at AS at FROM settings_audit WHERE setting = 'operatorName' ORDER BY id DESC LIMIT ?",
    )
    .all(limit) as OperatorNameChange[];
  return rows;
}
