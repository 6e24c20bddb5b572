// The Team section's pure parts: checking the Add operator form before it is sent (main and PostgreSQL
// check again), and how an operator's status reads.
import type { TeamOperatorRow } from '../../../../main/ipc/contract/team.js';
import {
  isTeamRole,
  isValidLogin,
  LOGIN_RULE,
  MIN_PASSWORD_LENGTH,
  type TeamRole,
} from '../../../../main/team/roles.shared.js';

export interface NewOperatorForm {
  login: string;
  displayName: string;
  role: TeamRole | '';
  password: string;
  passwordAgain: string;
}

export const EMPTY_OPERATOR_FORM: NewOperatorForm = {
  login: '',
  displayName: '',
  role: '',
  password: '',
  passwordAgain: '',
};

/** Field -> message for what is wrong (named like the IPC request, plus passwordAgain); empty when it may be sent. */
export function checkNewOperator(form: NewOperatorForm): Partial<Record<keyof NewOperatorForm, string>> {
  const errors: Partial<Record<keyof NewOperatorForm, string>> = {};
  const login = form.login.trim();
  if (!login) errors.login = 'Enter a login.';
  else if (!isValidLogin(login)) errors.login = `A login is ${LOGIN_RULE}.`;
  if (!form.displayName.trim()) errors.displayName = 'Enter the name others will see.';
  else if (form.displayName.trim().length > 200) errors.displayName = 'At most 200 characters.';
  if (!isTeamRole(form.role)) errors.role = 'Choose a role.';
  if (form.password.length < MIN_PASSWORD_LENGTH)
    errors.password = `At least ${MIN_PASSWORD_LENGTH} characters (${form.password.length} so far).`;
  if (form.passwordAgain !== form.password) errors.passwordAgain = 'The two passwords differ.';
  return errors;
}

/** "Enabled", or "Disabled" with when (the caller formats the time). */
export function operatorStatus(row: Pick<TeamOperatorRow, 'disabledAt'>): 'enabled' | 'disabled' {
  return row.disabledAt === null ? 'enabled' : 'disabled';
}

/** Whether the team profile is the open one (a profile name the contract may not list yet). */
export function isTeamProfile(profile: string): boolean {
  return profile === 'team';
}
