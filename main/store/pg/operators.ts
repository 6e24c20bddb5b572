// team.operators (team migrations 1 and 3): operators are PostgreSQL logins, one group each. The table is
// written only through the SECURITY DEFINER functions of migration 3 (admins may execute them); anyone
// may read it. Passwords reach the server as SCRAM verifiers only, never in plain text.
import type pg from 'pg';
import type { Queryable } from './connection.js';
import { date, dateOrNull, intOrNull, maybe, onlyRow, rowMapper, text } from '../columns.js';

/** Where team migration 14 announces a change to an operator's row; the payload is their login. */
export const OPERATORS_CHANNEL = 'team_operators';

/** Subscribes `client` (the connection that listens for events, team/listen.ts) to OPERATORS_CHANNEL. */
export async function listenForOperatorChanges(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${OPERATORS_CHANNEL}`);
}

/** An operator's row as stored. */
export interface OperatorRow {
  login: string;
  /** One of the roles of its CHECK: support, finance, back_office, admin. */
  role: string;
  display_name: string;
  disabled_at: Date | null;
  created_at: Date;
  created_by: string;
  changed_at: Date;
  changed_by: string;
}

const operatorRowOf = rowMapper<OperatorRow>((r) => ({
  login: text(r, 'login'),
  role: text(r, 'role'),
  display_name: text(r, 'display_name'),
  disabled_at: dateOrNull(r, 'disabled_at'),
  created_at: date(r, 'created_at'),
  created_by: text(r, 'created_by'),
  changed_at: date(r, 'changed_at'),
  changed_by: text(r, 'changed_by'),
}));
const standingOf = rowMapper((r) => ({ role: text(r, 'role'), disabled_at: dateOrNull(r, 'disabled_at') }));
const stillOf = rowMapper((r) => intOrNull(r, 'still'));

/** Creates the operator's login in its role's group, and their row. */
export async function createOperatorLogin(
  db: Queryable,
  login: string,
  role: string,
  scramVerifier: string,
  displayName: string,
): Promise<void> {
  await db.query('SELECT team.add_operator($1, $2, $3, $4)', [login, role, scramVerifier, displayName]);
}

/** Marks the operator disabled and takes away their sign-in (NOLOGIN). */
export async function disableOperatorLogin(db: Queryable, login: string): Promise<void> {
  await db.query('SELECT team.disable_operator($1)', [login]);
}

export async function enableOperatorLogin(db: Queryable, login: string): Promise<void> {
  await db.query('SELECT team.enable_operator($1)', [login]);
}

export async function setOperatorLoginRole(db: Queryable, login: string, role: string): Promise<void> {
  await db.query('SELECT team.set_operator_role($1, $2)', [login, role]);
}

export async function setOperatorLoginPassword(db: Queryable, login: string, scramVerifier: string): Promise<void> {
  await db.query('SELECT team.set_operator_password($1, $2)', [login, scramVerifier]);
}

/**
 * Ends the operator's sessions; how many were still there (0: none), or null when this login may not
 * end sessions (no pg_signal_backend).
 */
export async function endOperatorSessions(db: Queryable, login: string): Promise<number | null> {
  const r = await db.query('SELECT team.end_operator_sessions($1) AS still', [login]);
  return onlyRow(r.rows, stillOf);
}

/**
 * Sets the signed-in login's own password (PostgreSQL lets any login do this for itself). ALTER ROLE takes
 * no parameters, so the verifier is quoted as a literal: it must hold only base64, digits, '$' and ':'.
 */
export async function setOwnPassword(db: Queryable, scramVerifier: string): Promise<void> {
  if (!/^[A-Za-z0-9+/=$:-]+$/.test(scramVerifier)) throw new Error('a SCRAM verifier holds only base64, $ and :');
  await db.query(`ALTER ROLE SESSION_USER PASSWORD '${scramVerifier}'`);
}

export async function selectOperators(db: Queryable): Promise<OperatorRow[]> {
  return (await db.query('SELECT * FROM team.operators ORDER BY login')).rows.map(operatorRowOf);
}

/** The signed-in login's row; undefined for a login that is not an operator (the schema owner). */
export async function selectSignedInOperator(db: Queryable): Promise<OperatorRow | undefined> {
  return maybe((await db.query('SELECT * FROM team.operators WHERE login = session_user')).rows[0], operatorRowOf);
}

/** One operator's role and whether they are disabled; undefined when `login` is not an operator. */
export async function selectOperatorStanding(
  db: Queryable,
  login: string,
): Promise<{ role: string; disabled_at: Date | null } | undefined> {
  const r = await db.query('SELECT role, disabled_at FROM team.operators WHERE login = $1', [login]);
  return maybe(r.rows[0], standingOf);
}
