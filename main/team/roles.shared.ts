// The operator rules both sides need: main checks them before asking PostgreSQL (which checks them
// again), and the Settings form checks them as the admin types. Shared with the renderer: no imports.

// receiver is `merchant-desk serve`'s login (team migration 4): callbacks and polls, nothing else.
export const TEAM_ROLES = ['support', 'finance', 'back_office', 'admin', 'receiver'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** One operator, as the team database lists them (times in ms since the epoch; disabledAt null while enabled). */
export interface Operator {
  login: string;
  role: TeamRole;
  displayName: string;
  disabledAt: number | null;
  createdAt: number;
  createdBy: string;
  changedAt: number;
  changedBy: string;
}

/** PCI DSS 8.3.6 asks for at least 12 characters. */
export const MIN_PASSWORD_LENGTH = 12;

/** A PostgreSQL login the operator functions accept (they refuse pg_ names, PostgreSQL's own). */
const LOGIN_PATTERN = /^[a-z][a-z0-9_]{1,62}$/;
export const LOGIN_RULE = '2 to 63 lower-case letters, digits or _, starting with a letter and not with pg_';

export function isValidLogin(login: string): boolean {
  return LOGIN_PATTERN.test(login) && !login.startsWith('pg_');
}

export function isTeamRole(role: string): role is TeamRole {
  return (TEAM_ROLES as readonly string[]).includes(role);
}

/** Words for a role, as the Settings screen and the CLI show it. */
export const ROLE_LABEL: Record<TeamRole, string> = {
  support: 'Support',
  finance: 'Finance',
  back_office: 'Back office',
  admin: 'Admin',
  receiver: 'Callback server (serve)',
};

/** A role in the words a sentence uses ("back office"), as the status bar shows it. */
export function roleWords(role: TeamRole): string {
  return role.replace('_', ' ');
}

/**
 * What an operator does at a desk that the team database allows only some roles, and who those are
 * (team migration 2's grants and row policies; admin is a member of support, finance and back_office).
 * The screens offer each action only to these roles and say who can; PostgreSQL still decides.
 */
export const TEAM_ACTIONS = {
  /** An intent (team.intents) and its charge events: support. */
  takePayments: { roles: ['support', 'admin'], who: 'Taking payments is for support and admins.' },
  /** A resolution (a `manual` event): back office. */
  resolveExceptions: { roles: ['back_office', 'admin'], who: 'Resolving exceptions is for back office and admins.' },
  /** Imported callbacks (`import` events): back office. */
  importCallbacks: { roles: ['back_office', 'admin'], who: 'Importing callbacks is for back office and admins.' },
  /** team.add_operator, disable_operator, ... (team migration 3): admin. */
  manageOperators: { roles: ['admin'], who: 'Adding, disabling and re-roling operators is for admins.' },
} as const satisfies Record<string, { roles: readonly TeamRole[]; who: string }>;
export type TeamAction = keyof typeof TEAM_ACTIONS;

export function roleMay(role: TeamRole, action: TeamAction): boolean {
  return (TEAM_ACTIONS[action].roles as readonly TeamRole[]).includes(role);
}
