// Team operators over IPC: adapters over the operator changes (main/operations/operators.ts) and the
// reads. The pool is the signed-in operator's own PostgreSQL login, so the database decides every
// change: a non-admin's call reaches PostgreSQL and is refused there, whatever the UI shows. The team
// client's errors are shown as they are (they are DeskErrors written for a person).
import type pg from 'pg';
import type { teamChannels, TeamOperatorRow } from '../contract/team.js';
import type { HandlersFor } from './types.js';
import { AppError } from '../../app/errors.js';
import { TeamFieldError } from '../../team/errors.js';
import { currentOperator, listOperators, type Operator } from '../../team/operators.js';
import { addOperator, disableOperator, enableOperator, setOperatorRole } from '../../operations/operators.js';
import type { TeamRole } from '../../team/roles.shared.js';

/** The signed-in team session: null when the profile is not a team one, or nobody is signed in. */
export interface TeamAccess {
  pool: pg.Pool;
  login: string;
  role: TeamRole;
}

export interface TeamHandlerDeps {
  team(): TeamAccess | null;
}

function session(deps: TeamHandlerDeps): TeamAccess {
  const t = deps.team();
  if (!t) {
    throw new AppError(
      'not_configured',
      'Team operators exist only in a team profile, once you are signed in. Switch to the team profile in Settings and sign in.',
    );
  }
  return t;
}

/** The request's field names (login, role, displayName, password) for the database's. */
const FIELD: Record<string, string> = { display_name: 'displayName' };

/**
 * The team client's errors are DeskErrors written for a person (team/errors.ts), shown as they are
 * with their own kind ('permission', 'authentication', 'team_unavailable', 'refused'); only a field
 * error is renamed to the request's field.
 */
function teamErrorToApp(e: unknown): unknown {
  if (!(e instanceof TeamFieldError)) return e;
  const field = FIELD[e.field] ?? e.field;
  // As the contract's own checks do: the message names the field, the per-field one is bare.
  const bare = e.message.slice(e.field.length + 2);
  return new AppError('validation', `${field}: ${bare}`, { field, fields: { [field]: bare }, cause: e });
}

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw teamErrorToApp(e);
  }
}

const toRow = (o: Operator): TeamOperatorRow => ({
  login: o.login,
  role: o.role,
  displayName: o.displayName,
  disabledAt: o.disabledAt,
  createdAt: o.createdAt,
  createdBy: o.createdBy,
  changedAt: o.changedAt,
  changedBy: o.changedBy,
});

export const teamHandlers = (deps: TeamHandlerDeps): HandlersFor<typeof teamChannels> => ({
  'team.me': () => {
    const t = session(deps);
    return guarded(async () => {
      const me = await currentOperator(t.pool);
      // The database's row wins over what the session remembered at sign-in (an admin may have re-roled).
      const role = me?.role ?? t.role;
      return { login: me?.login ?? t.login, role, displayName: me?.displayName ?? null, isAdmin: role === 'admin' };
    });
  },
  'team.operators.list': () => {
    const t = session(deps);
    return guarded(async () => (await listOperators(t.pool)).map(toRow));
  },
  'team.operators.add': (req) => {
    const t = session(deps);
    return guarded(async () => {
      await addOperator({ pool: t.pool }, req);
      return null;
    });
  },
  'team.operators.disable': ({ login }) => {
    const t = session(deps);
    return guarded(async () => {
      await disableOperator({ pool: t.pool }, login);
      return null;
    });
  },
  'team.operators.enable': ({ login }) => {
    const t = session(deps);
    return guarded(async () => {
      await enableOperator({ pool: t.pool }, login);
      return null;
    });
  },
  'team.operators.setRole': ({ login, role }) => {
    const t = session(deps);
    return guarded(async () => {
      await setOperatorRole({ pool: t.pool }, login, role);
      return null;
    });
  },
});
