// Which team database a desktop's copy belongs to (team migration 6, SQLite migration 13). The first
// sync records the database's id; every later sync checks it before applying anything, so a desk
// pointed at another team database never mixes two records (their seqs mean nothing to each other).
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { localWorkspaceId, recordWorkspace } from '../../store/sqlite/team/workspace.js';
import { TeamError, translatePgError } from '../errors.js';
import { poolLogin } from '../pool.js';
import { selectWorkspaceId } from '../../store/pg/workspace.js';

/** The database is another team's: this desk's copy cannot be applied from it. */
export class TeamWorkspaceMismatchError extends TeamError {
  override name = 'TeamWorkspaceMismatchError';
}

/** Records the team database's id on first use; throws TeamWorkspaceMismatchError when it differs. */
export async function checkWorkspace(pool: pg.Pool, db: Db, now: number): Promise<void> {
  let id: string | undefined;
  try {
    id = await selectWorkspaceId(pool);
  } catch (e) {
    throw translatePgError(e, 'read which team database this is', poolLogin(pool));
  }
  if (!id) throw new TeamError('the team database has no workspace id (team.workspace): run "merchant-desk team init"');
  const local = localWorkspaceId(db);
  if (local === id) return;
  if (local !== undefined)
    throw new TeamWorkspaceMismatchError(
      `this desk's local copy was synced from another team database (workspace ${local}; this one is ${id}). ` +
        'Nothing was applied. Point the team profile back at that database, or use a new data folder for this one.',
    );
  writeTransaction(db, () => {
    recordWorkspace(db, id, now);
  });
}
