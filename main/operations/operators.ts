// Operator changes, in one place (issue 28): adding an operator, disabling one (and ending their
// sessions), enabling, re-roling, setting another's password, changing one's own. Settings, Team (the IPC
// handlers in ipc/handlers/team.ts) and `merchant-desk team operators` (cli/commands/team.ts) are thin
// adapters over these: they parse the request, call, and shape the answer for a form or a terminal.
//
// Each change is one call of team migration 3's SECURITY DEFINER functions through the pool of whoever
// makes it. The database decides: only the admin group may execute them, and it records the actor
// itself (changed_by = session_user), so no caller can name another. A password reaches it only as a
// SCRAM verifier. Every committed change is announced to the desks (team migration 14), so the
// operator's desk follows a new role or a disable within moments (team/standing.ts) and open operator
// lists re-read. What this module adds: the checks that name a field before the database is asked, and
// the refusal text, which names the role the database holds now for whoever was refused.
import type pg from 'pg';
import {
  createOperatorLogin,
  disableOperatorLogin,
  enableOperatorLogin,
  endOperatorSessions,
  setOperatorLoginPassword,
  setOperatorLoginRole,
  setOwnPassword,
} from '../store/pg/operators.js';
import { TeamError, TeamFieldError, TeamPermissionError, translatePgError } from '../team/errors.js';
import { currentOperator } from '../team/operators.js';
import { poolLogin } from '../team/pool.js';
import { scramVerifier } from '../team/scram.js';
import {
  isTeamRole,
  isValidLogin,
  LOGIN_RULE,
  MIN_PASSWORD_LENGTH,
  roleWords,
  TEAM_ROLES,
  type TeamRole,
} from '../team/roles.shared.js';

/** What an operator change needs: a pool signed in as the person making it (they are its actor). */
export interface OperatorChangeDeps {
  pool: pg.Pool;
}

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

/**
 * "login (role)" as the database holds it now, for a refusal: the role read when the refusal came, not
 * the one a desk remembered (an admin may have re-roled the login meanwhile). Just the login when it
 * is not a team operator (the schema owner) or the row cannot be read.
 */
async function whoNow(pool: pg.Pool, login: string): Promise<string> {
  const me = await currentOperator(pool).catch(() => null);
  return me ? `${login} (${roleWords(me.role)})` : login;
}

/** Runs one operator statement; `adminFunction`: one of migration 3's functions, for admins only. */
async function call(pool: pg.Pool, doing: string, statement: () => Promise<void>, adminFunction = true): Promise<void> {
  try {
    await statement();
  } catch (e) {
    const err = translatePgError(e, doing, poolLogin(pool));
    // Only the admin group may execute the operator functions: say so, with the role the database
    // holds for the caller now, rather than name a function.
    if (err instanceof TeamPermissionError && adminFunction) {
      const login = poolLogin(pool);
      throw new TeamPermissionError(
        `only an admin can manage operators${login ? `: ${await whoNow(pool, login)} is not an admin` : ''}, so could not ${doing}`,
        err.code,
        { cause: e },
      );
    }
    throw err;
  }
}

/** Adds an operator (admins only). The password is sent as a SCRAM verifier, never in plain text. */
export async function addOperator(deps: OperatorChangeDeps, op: NewOperator): Promise<void> {
  checkLogin(op.login);
  checkRole(op.role);
  checkPassword(op.password);
  if (typeof op.displayName !== 'string' || op.displayName.trim().length === 0)
    throw new TeamFieldError('displayName', 'is required');
  const verifier = scramVerifier(op.password);
  await call(deps.pool, 'add operators', () =>
    createOperatorLogin(deps.pool, op.login, op.role, verifier, op.displayName),
  );
}

/**
 * Disables an operator (admins only): when this returns they cannot sign in, no session of theirs is
 * left, and the database refuses their writes (migration 8) should one survive anyway. Their desk
 * locks, saying an admin disabled the login.
 */
export async function disableOperator(deps: OperatorChangeDeps, login: string): Promise<void> {
  checkLogin(login);
  await call(deps.pool, 'disable operators', () => disableOperatorLogin(deps.pool, login));
  await endSessions(deps.pool, login);
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
    // The operator admin may not end sessions (no pg_signal_backend): the database still refuses their
    // writes, and their desk signs out when it next reads their row (team/standing.ts).
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

export async function enableOperator(deps: OperatorChangeDeps, login: string): Promise<void> {
  checkLogin(login);
  await call(deps.pool, 'enable operators', () => enableOperatorLogin(deps.pool, login));
}

/**
 * Moves an operator to another group (admins only). The database applies it from their next
 * transaction; their desk follows within moments (status bar, navigation, controls).
 */
export async function setOperatorRole(deps: OperatorChangeDeps, login: string, role: TeamRole): Promise<void> {
  checkLogin(login);
  checkRole(role);
  await call(deps.pool, 'change operator roles', () => setOperatorLoginRole(deps.pool, login, role));
}

/** Sets another operator's password (admins only). */
export async function setOperatorPassword(deps: OperatorChangeDeps, login: string, password: string): Promise<void> {
  checkLogin(login);
  checkPassword(password);
  const verifier = scramVerifier(password);
  await call(deps.pool, 'set operator passwords', () => setOperatorLoginPassword(deps.pool, login, verifier));
}

/** The signed-in operator changes their own password (PostgreSQL lets any login do this for itself). */
export async function changeOwnPassword(deps: OperatorChangeDeps, password: string): Promise<void> {
  checkPassword(password);
  const verifier = scramVerifier(password);
  await call(deps.pool, 'change their password', () => setOwnPassword(deps.pool, verifier), false);
}
