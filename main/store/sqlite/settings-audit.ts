// The settings_audit table (store migration 009): an append-only record of changes to a setting, old and
// new value. Today it records the operator name (settings/audit.ts says when).
import type { Db, ReadDb } from './connection.js';
import { readStatement, statement } from './statements.js';

export interface OperatorNameChange {
  from: string | null;
  to: string;
  /** Epoch ms. */
  at: number;
}

/** Appends one change of the operator name; call inside the transaction that writes the setting. */
export function insertOperatorNameChange(db: Db, from: string | null, to: string, at: number): void {
  statement(
    db,
    "INSERT INTO settings_audit (setting, old_value, new_value, changed_at) VALUES ('operatorName', ?, ?, ?)",
  ).run(from, to, at);
}

/** The latest changes of the operator name, newest first. */
export function operatorNameChanges(db: ReadDb, limit = 20): OperatorNameChange[] {
  return readStatement(
    db,
    "SELECT old_value AS 'from', new_value AS 'to', changed_at AS at FROM settings_audit WHERE setting = 'operatorName' ORDER BY id DESC LIMIT ?",
  ).all(limit) as OperatorNameChange[];
}
