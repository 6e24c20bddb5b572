// Team operators, for the Settings "Team" section of a team profile. PostgreSQL decides who may manage
// operators (only the admin group may run the operator functions); these schemas only give the form
// early, field-named answers. Times are milliseconds since the epoch.
import { z } from 'zod';
import { channel, noRequest } from './define.js';
import {
  isValidLogin,
  MIN_PASSWORD_LENGTH,
  TEAM_ROLES,
  type Operator,
  type TeamRole,
} from '../../team/roles.shared.js';

export type { TeamRole };

/** One operator as the Settings table shows it. */
export type TeamOperatorRow = Operator;

/** The signed-in operator. `displayName` is null for a login that is not a team operator (the owner). */
export interface TeamMe {
  login: string;
  role: TeamRole;
  displayName: string | null;
  /** Whether the admin controls are shown; the database still decides every change. */
  isAdmin: boolean;
}

const login = z
  .string()
  .trim()
  .refine((v) => isValidLogin(v), { message: 'errors.zod.login' });
const role = z.enum(TEAM_ROLES, { message: 'errors.zod.role' });
const displayName = z.string().trim().min(1, 'errors.zod.required').max(200, 'errors.zod.atMost200');
const password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, 'errors.zod.tooLong');

/** Pushed when the team database announces a change to an operator: an open operator list re-reads. */
export type teamEvents = {
  /** `login` whose row changed; null: one or more changes, re-read the list. */
  'team.operatorsChanged': { login: string | null };
};

const loginRequest = z.object({ login });
const addRequest = z.object({ login, role, displayName, password });
const setRoleRequest = z.object({ login, role });

export const teamChannels = {
  'team.me': channel<typeof noRequest, TeamMe>(noRequest),
  'team.operators.list': channel<typeof noRequest, TeamOperatorRow[]>(noRequest),
  /** The password is the operator's first one; it goes to PostgreSQL only as a SCRAM verifier. */
  'team.operators.add': channel<typeof addRequest, null>(addRequest),
  /** The operator cannot sign in any more, and their open sessions end. */
  'team.operators.disable': channel<typeof loginRequest, null>(loginRequest),
  'team.operators.enable': channel<typeof loginRequest, null>(loginRequest),
  'team.operators.setRole': channel<typeof setRoleRequest, null>(setRoleRequest),
};
