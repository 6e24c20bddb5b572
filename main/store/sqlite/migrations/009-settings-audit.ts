// Who changed a setting that names a person (the operator name, recorded on every payment and
// resolution) and when: until real sign-in arrives, the main process keeps this record of every change,
// append-only like the other histories.
export const sql = `
CREATE TABLE settings_audit (
  id INTEGER PRIMARY KEY,
  setting TEXT NOT NULL,
  old_value TEXT,
  new_value TEXT NOT NULL,
  changed_at INTEGER NOT NULL
);
CREATE TRIGGER settings_audit_no_update BEFORE UPDATE ON settings_audit
BEGIN SELECT RAISE(ABORT, 'settings_audit is append-only'); END;
CREATE TRIGGER settings_audit_no_delete BEFORE DELETE ON settings_audit
BEGIN SELECT RAISE(ABORT, 'settings_audit is append-only'); END;
`;
