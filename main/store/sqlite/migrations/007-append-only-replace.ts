// INSERT OR REPLACE (or REPLACE INTO) with an existing id deletes the old row without firing the
// no_delete triggers (unless recursive_triggers is on, which is per connection and off by default, so a
// sqlite3 shell or another tool would not have it). These triggers refuse such an insert before the
// REPLACE can delete anything, whatever connection runs it.
// A dedupe_key already stored is skipped (RAISE(IGNORE)), not refused: that is what the app's own
// INSERT ... ON CONFLICT (dedupe_key) DO NOTHING asks for, and a REPLACE must not rewrite it either.
export const sql = `
CREATE TRIGGER collection_events_no_replace BEFORE INSERT ON collection_events
WHEN EXISTS (SELECT 1 FROM collection_events WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'collection_events is append-only: this event id already exists'); END;
CREATE TRIGGER collection_events_no_replace_key BEFORE INSERT ON collection_events
WHEN NEW.dedupe_key IS NOT NULL AND EXISTS (SELECT 1 FROM collection_events WHERE dedupe_key = NEW.dedupe_key)
BEGIN SELECT RAISE(IGNORE); END;
CREATE TRIGGER balance_snapshots_no_replace BEFORE INSERT ON balance_snapshots
WHEN EXISTS (SELECT 1 FROM balance_snapshots WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'balance_snapshots is append-only: this snapshot id already exists'); END;
`;
