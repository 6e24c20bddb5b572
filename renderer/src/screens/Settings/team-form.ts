// The Team section's pure parts: checking the Add operator form before it is sent (main and PostgreSQL
// check again), and how an operator's status reads.
import { words, type Words } from '../../../../main/words/words.shared.js';
import type { TeamOperatorRow } from '../../../../main/ipc/contract/team.js';
import { isTeamRole, isValidLogin, MIN_PASSWORD_LENGTH, type TeamRole } from '../../../../main/team/roles.shared.js';

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

/** Field -> words for what is wrong (named like the IPC request, plus passwordAgain); empty when it may be sent. */
export function checkNewOperator(form: NewOperatorForm): Partial<Record<keyof NewOperatorForm, Words>> {
  const errors: Partial<Record<keyof NewOperatorForm, Words>> = {};
  const login = form.login.trim();
  if (!login) errors.login = words('settings.team.err.login');
  else if (!isValidLogin(login)) errors.login = words('settings.team.err.loginRule');
  if (!form.displayName.trim()) errors.displayName = words('settings.team.err.name');
  else if (form.displayName.trim().length > 200) errors.displayName = words('settings.team.err.nameLong');
  if (!isTeamRole(form.role)) errors.role = words('settings.team.err.role');
  if (form.password.length < MIN_PASSWORD_LENGTH)
    errors.password = words('settings.team.err.password', { min: MIN_PASSWORD_LENGTH, length: form.password.length });
  if (form.passwordAgain !== form.password) errors.passwordAgain = words('settings.team.err.again');
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
