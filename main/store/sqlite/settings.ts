// The settings table: one row per setting, its value as JSON text. What a setting may hold and the
// rules between settings are settings/settings.ts's; a capability's own key (the profile) is written here too.
import type { ReadDb, WriteDb } from './connection.js';
import { readStatement, statement } from './statements.js';
import { rowMapper, text, textValue } from '../columns.js';

export interface SettingRow {
  key: string;
  /** JSON text. */
  value: string;
}

const settingRowOf = rowMapper<SettingRow>((r) => ({ key: text(r, 'key'), value: text(r, 'value') }));

export function settingRows(db: ReadDb): SettingRow[] {
  return readStatement(db, 'SELECT key, value FROM settings').all().map(settingRowOf);
}

/** The stored JSON text of `key`, if it is stored. */
export function settingValue(db: ReadDb, key: string): string | undefined {
  const value = readStatement(db, 'SELECT value FROM settings WHERE key = ?', 'pluck').get(key);
  return value === undefined ? undefined : textValue(value, 'value');
}

/** Stores `key`'s JSON text (inserted, or replacing the stored one). */
export function putSetting(db: WriteDb, key: string, value: string, now: number): void {
  statement(
    db,
    'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  ).run(key, value, now);
}
