// The record of who the operator was before and after each change of the operator name (the name put
// on every payment and resolution). The renderer may change the name, so the main process records every
// change, in the same transaction as the change itself; the table is append-only (store migration 009,
// store/sqlite/settings-audit.ts).
import type { ReadDb, WriteDb } from '../store/sqlite/connection.js';
import { insertSettingChange, settingChanges, type SettingChangeRow } from '../store/sqlite/settings-audit.js';

export type OperatorNameChange = SettingChangeRow;

/** Records a change of the operator name; call inside the transaction that writes it. Same name: nothing. */
export function recordOperatorNameChange(db: WriteDb, from: string | null, to: string, at: number): void {
  if (from === to) return;
  insertSettingChange(db, 'operatorName', from, to, at);
}

/** The latest changes of the operator name, newest first. */
export function operatorNameChanges(db: ReadDb, limit = 20): OperatorNameChange[] {
  return settingChanges(db, 'operatorName', limit);
}
