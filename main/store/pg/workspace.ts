// team.workspace (team migration 6): the one row that names this team database, so a desk's copy is
// never applied from another one.
import type { Queryable } from './connection.js';
import { maybe, rowMapper, text } from '../columns.js';

const workspaceIdOf = rowMapper((r) => text(r, 'id'));

/** The team database's id; undefined when it has none yet. */
export async function selectWorkspaceId(db: Queryable): Promise<string | undefined> {
  return maybe((await db.query('SELECT id FROM team.workspace')).rows[0], workspaceIdOf);
}
