// Operators are PostgreSQL logins (SCRAM) in one group each. Admins manage them through the
// SECURITY DEFINER functions of migration 3; everyone may read the list and their own row.
import type pg from 'pg';
import {
  createOperatorLogin,
  disableOperatorLogin,
  enableOperatorLogin,
  endOperatorSessions,
  selectOperators,
  selectSignedInOperator,
  setOperatorLoginPassword,
  setOperatorLoginRole,
  setOwnPassword,
  type OperatorRow,
} from '../store/pg/operators.js';
import { TeamError, TeamFieldError, TeamPermissionError, translatePgError } from './errors.js';
import { poolLogin } from './pool.js';
import { scramVerifier } from './scram.js';
import {
  isTeamRole,
  isValidLogin,
  LOGIN_RULE,
  MIN_PASSWORD_LENGTH,
  TEAM_ROLES,
  type Operator,
  type TeamRole,
} from './roles.shared.js';

export { MIN_PASSWORD_LENGTH, TEAM_ROLES, type Operator, type TeamRole };

export interface NewOperator {
  login: string;
  role: TeamRole;
  password: string;
  displayName: string;
}

function checkLogin(login: string): void {
  if (typeof login !== 'string' || !isValidLogin(login)) {
    throw new TeamFieldError('login', `must be ${LOGIN_RULE} (got ${JSON.stringify(login)})`);
  }
}

function checkRole(role: string): asserts role is TeamRole {
  if (!isTeamRole(role)) {
    throw new TeamFieldError('role', `must be one of ${TEAM_ROLES.join(', ')} (got ${JSON.stringify(role)})`);
  }
}

function checkPassword(password: string): void {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) {
    throw new TeamFieldError('password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

/** Runs one of the operator statements; `adminFunction`: one of migration 3's functions, for admins only. */
async function call(pool: pg.Pool, doing: string, statement: () => Promise<void>, adminFunction = true): Promise<void> {
  try {
    await statement();
  } catch (e) {
    const err = translatePgError(e, doing, poolLogin(pool));
    // Only the admin group may execute the operator functions: say so rather than name a function.
    if (err instanceof TeamPermissionError && adminFunction) {
      const login = poolLogin(pool);
      throw new TeamPermissionError(
        `only an admin can manage operators${login ? `: ${login} is not an admin` : ''}, so could not ${doing}`,
        err.code,
        { cause: e },
      );
    }
    throw err;
  }
}

/** Adds an operator (admins only). The password is sent as a SCRAM verifier, never in plain text. */
export async function addOperator(pool: pg.Pool, op: NewOperator): Promise<void> {
  checkLogin(op.login);
  checkRole(op.role);
  checkPassword(op.password);
  if (typeof op.displayName !== 'string' || op.displayName.trim().length === 0)
    throw new TeamFieldError('displayName', 'is required');
  const verifier = scramVerifier(op.password);
  await call(pool, 'add operators', () => createOperatorLogin(pool, op.login, op.role, verifier, op.displayName));
}

/**
 * Disables an operator (admins only): when this returns they cannot sign in, no session of theirs is
 * left, and the database refuses their writes (migration 8) should one survive anyway.
 */
export async function disableOperator(pool: pg.Pool, login: string): Promise<void> {
  checkLogin(login);
  await call(pool, 'disable operators', () => disableOperatorLogin(pool, login));
  await endSessions(pool, login);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a disable keeps ending sessions that keep appearing before it says so. */
const END_SESSIONS_MS = 10_000;
/** Looks in a row that must find no session, this far apart, before a disable returns. */
const QUIET_LOOKS = 2;
const QUIET_GAP_MS = 100;

/**
 * disable_operator ends sessions before its NOLOGIN commits, so a session that signed in meanwhile
 * escapes it; after the commit no new one can start. End the rest now, until QUIET_LOOKS looks in a
 * row find none (one that passed the login check just before the commit appears a moment later).
 */
async function endSessions(pool: pg.Pool, login: string): Promise<void> {
  const deadline = Date.now() + END_SESSIONS_MS;
  let quiet = 0;
  for (;;) {
    let still: number | null;
    try {
      still = await endOperatorSessions(pool, login);
    } catch (e) {
      throw translatePgError(e, `end the sessions of ${login}`, poolLogin(pool));
    }
    // The operator admin may not end sessions (no pg_signal_backend): the database still refuses their writes.
    if (still === null) return;
    quiet = still === 0 ? quiet + 1 : 0;
    if (quiet >= QUIET_LOOKS) return;
    if (Date.now() > deadline) {
      throw new TeamError(
        `${login} is disabled and cannot sign in again, but ${still} of their sessions did not end; their writes are refused`,
      );
    }
    await sleep(QUIET_GAP_MS);
  }
}

export async function enableOperator(pool: pg.Pool, login: string): Promise<void> {
  checkLogin(login);
  await call(pool, 'enable operators', () => enableOperatorLogin(pool, login));
}

/** Moves an operator to another group (admins only); the change applies from their next transaction. */
export async function setOperatorRole(pool: pg.Pool, login: string, role: TeamRole): Promise<void> {
  checkLogin(login);
  checkRole(role);
  await call(pool, 'change operator roles', () => setOperatorLoginRole(pool, login, role));
}

/** Sets another operator's password (admins only). */
export async function setOperatorPassword(pool: pg.Pool, login: string, password: string): Promise<void> {
  checkLogin(login);
  checkPassword(password);
  const verifier = scramVerifier(password);
  await call(pool, 'set operator passwords', () => setOperatorLoginPassword(pool, login, verifier));
}

/** The signed-in operator changes their own password (PostgreSQL lets any login do this for itself). */
export async function changeOwnPassword(pool: pg.Pool, password: string): Promise<void> {
  checkPassword(password);
  const verifier = scramVerifier(password);
  await call(pool, 'change their password', () => setOwnPassword(pool, verifier), false);
}

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
