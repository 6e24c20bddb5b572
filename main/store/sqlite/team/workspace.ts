// Which team database this desk's copy belongs to (team_workspace, migration 13): recorded by the first
// sync, compared by every later one.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { textValue } from '../../columns.js';

/** The team workspace id this copy was synced from, or undefined before the first sync. */
export function localWorkspaceId(db: ReadDb): string | undefined {
  const id = readStatement(db, 'SELECT id FROM team_workspace', 'pluck').get();
  return id === undefined ? undefined : textValue(id, 'id');
}

/** Records the team workspace id at the first sync; call inside a write transaction. */
export function recordWorkspace(db: WriteDb, id: string, now: number): void {
  statement(db, 'INSERT INTO team_workspace (id, first_synced_at) VALUES (?, ?)').run(id, now);
}
