// Operators are PostgreSQL logins (SCRAM) in one group each. Everyone may read the list and their own
// row; the changes (admins only, through the SECURITY DEFINER functions of migration 3) are operations
// of their own: main/operations/operators.ts.
import type pg from 'pg';
import { selectOperators, selectSignedInOperator, type OperatorRow } from '../store/pg/operators.js';
import { translatePgError } from './errors.js';
import { poolLogin } from './pool.js';
import { MIN_PASSWORD_LENGTH, TEAM_ROLES, type Operator, type TeamRole } from './roles.shared.js';

export { MIN_PASSWORD_LENGTH, TEAM_ROLES, type Operator, type TeamRole };

const toOperator = (r: OperatorRow): Operator => ({
  login: r.login,
  role: r.role as TeamRole, // the table's CHECK allows only these
  displayName: r.display_name,
  disabledAt: r.disabled_at ? r.disabled_at.getTime() : null,
  createdAt: r.created_at.getTime(),
  createdBy: r.created_by,
  changedAt: r.changed_at.getTime(),
  changedBy: r.changed_by,
});

export async function listOperators(pool: pg.Pool): Promise<Operator[]> {
  try {
    return (await selectOperators(pool)).map(toOperator);
  } catch (e) {
    throw translatePgError(e, 'list operators', poolLogin(pool));
  }
}

/** The signed-in operator (null for a login that is not a team operator, e.g. the schema owner). */
export async function currentOperator(pool: pg.Pool): Promise<Operator | null> {
  try {
    const row = await selectSignedInOperator(pool);
    return row ? toOperator(row) : null;
  } catch (e) {
    throw translatePgError(e, 'read the signed-in operator', poolLogin(pool));
  }
}
