// The settings audit (settings_audit, store migration 009): append-only, one row per change of a
// recorded setting. Which changes are recorded is settings/audit.ts's.
import type { ReadDb, WriteDb } from './connection.js';
import { readStatement, statement } from './statements.js';
import { num, rowMapper, text, textOrNull } from '../columns.js';

export interface SettingChangeRow {
  from: string | null;
  to: string;
  /** Epoch ms. */
  at: number;
}

const settingChangeOf = rowMapper<SettingChangeRow>((r) => ({
  from: textOrNull(r, 'from'),
  to: text(r, 'to'),
  at: num(r, 'at'),
}));

/** Call inside the transaction that writes the setting. */
export function insertSettingChange(db: WriteDb, setting: string, from: string | null, to: string, at: number): void {
  statement(db, 'INSERT INTO settings_audit (setting, old_value, new_value, changed_at) VALUES (?, ?, ?, ?)').run(
    setting,
    from,
    to,
    at,
  );
}

/** The latest changes of `setting`, newest first. */
export function settingChanges(db: ReadDb, setting: string, limit: number): SettingChangeRow[] {
  return readStatement(
    db,
    "SELECT old_value AS 'from', new_value AS 'to', changed_at AS at FROM settings_audit WHERE setting = ? ORDER BY id DESC LIMIT ?",
  )
    .all(setting, limit)
    .map(settingChangeOf);
}
