// merchant-desk team operators list|add|disable|enable|role|password, signed in as an admin: every flag is
// checked before any password is asked for, and PostgreSQL decides who may do what.
import type pg from 'pg';
import { parseCommandArgs, UsageError, type CliContext } from '../command.js';
import { listOperators, type Operator } from '../../team/operators.js';
import {
  addOperator,
  disableOperator,
  enableOperator,
  setOperatorPassword,
  setOperatorRole,
} from '../../operations/operators.js';
import { TLS_OPTIONS } from '../team-tls.js';
import { isTeamRole, TEAM_ROLES, type TeamRole } from '../../team/roles.shared.js';
import { Passwords } from './team-passwords.js';
import {
  checkSignIn,
  databaseUrl,
  loginFlag,
  loginOfUrl,
  openSignedIn,
  tlsOf,
  withFlagNames,
} from './team-database.js';

export const OPERATOR_ACTIONS = ['list', 'add', 'disable', 'enable', 'role', 'password'] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

function roleFlag(value: string | undefined): TeamRole {
  if (!value) throw new UsageError(`--role is required: one of ${TEAM_ROLES.join(', ')}`);
  if (!isTeamRole(value))
    throw new UsageError(`--role must be one of ${TEAM_ROLES.join(', ')} (got ${JSON.stringify(value)})`);
  return value;
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function printOperators(ctx: CliContext, ops: Operator[], json: boolean): void {
  if (json) {
    const rows = ops.map((o) => ({
      login: o.login,
      role: o.role,
      displayName: o.displayName,
      enabled: o.disabledAt === null,
      disabledAt: isoOrNull(o.disabledAt),
      createdAt: isoOrNull(o.createdAt),
      createdBy: o.createdBy,
      changedAt: isoOrNull(o.changedAt),
      changedBy: o.changedBy,
    }));
    ctx.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (ops.length === 0) {
    ctx.io.stdout.write('no operators yet; add the first admin with merchant-desk team init\n');
    return;
  }
  const rows = [
    ['LOGIN', 'ROLE', 'NAME', 'STATUS'],
    ...ops.map((o) => [
      o.login,
      o.role,
      o.displayName,
      o.disabledAt === null
        ? 'enabled'
        : `disabled ${new Date(o.disabledAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    ctx.io.stdout.write(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
}

export async function runOperators(action: OperatorAction, args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseCommandArgs({
    args,
    options: {
      database: { type: 'string' },
      login: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
      'no-password': { type: 'boolean', default: false },
      ...TLS_OPTIONS,
    },
    strict: true,
    allowPositionals: false,
  });
  const url = databaseUrl(values.database);
  const tls = tlsOf(values, url, ctx);
  const given = (flag: 'login' | 'role' | 'name' | 'json', allowed: readonly string[]) => {
    if (values[flag] !== undefined && values[flag] !== false && !allowed.includes(action))
      throw new UsageError(`--${flag} does not apply to team operators ${action}`);
  };
  given('login', ['add', 'disable', 'enable', 'role', 'password']);
  given('role', ['add', 'role']);
  given('name', ['add']);
  given('json', ['list']);
  // Check every flag before asking for any password.
  const login = action === 'list' ? '' : loginFlag(values.login, '--login');
  const role = action === 'add' || action === 'role' ? roleFlag(values.role) : undefined;
  const displayName = action === 'add' ? values.name?.trim() : undefined;
  if (action === 'add' && !displayName)
    throw new UsageError("--name is required (the operator's name, as others see it)");

  const me = loginOfUrl(url, ctx.env);
  const passwords = new Passwords(ctx);
  let pool: pg.Pool | undefined;
  try {
    pool = openSignedIn(url, values['no-password'] ? null : await passwords.signIn(me), tls);
    const out = (line: string) => ctx.io.stdout.write(`${line}\n`);
    try {
      switch (action) {
        case 'list':
          printOperators(ctx, await listOperators(pool), values.json);
          break;
        case 'add': {
          // Sign-in is checked before the new password is asked for, so a typo costs one prompt.
          await checkSignIn(pool, me);
          const password = await passwords.newPassword(login);
          await addOperator({ pool }, { login, role: role!, password, displayName: displayName! });
          out(`added ${login} (${displayName}) as ${role}`);
          break;
        }
        case 'disable':
          await disableOperator({ pool }, login);
          out(`disabled ${login}: they cannot sign in, and their open sessions were ended`);
          break;
        case 'enable':
          await enableOperator({ pool }, login);
          out(`enabled ${login}: they can sign in again`);
          break;
        case 'role':
          await setOperatorRole({ pool }, login, role!);
          out(`${login} is now ${role} (their desk follows within seconds)`);
          break;
        case 'password': {
          await checkSignIn(pool, me);
          const password = await passwords.newPassword(login);
          await setOperatorPassword({ pool }, login, password);
          out(`set a new password for ${login}`);
          break;
        }
      }
    } catch (e) {
      throw withFlagNames(e);
    }
    return 0;
  } finally {
    passwords.close();
    await pool?.end().catch(() => undefined);
  }
}
