// merchant-desk team: sets up a team database (`init`: migrations as the database owner, then the first
// admin) and manages its operators (`operators ...`, signed in as an admin). PostgreSQL decides who may
// do what; this command only gathers the input and says the outcome, or the refusal, in plain words.
//
// Passwords never come from arguments (shell history, the process list): the sign-in password comes
// from PGPASSWORD, a hidden prompt on a terminal, or the first line of standard input; a new operator
// password from MERCHANT_DESK_NEW_PASSWORD, a hidden prompt (typed twice), or the next line.
import fs from 'node:fs';
import type pg from 'pg';
import { parseCommandArgs, UsageError, type CliContext, type Command } from '../command.js';
import { promptHidden } from '../hidden-input.js';
import { migrate } from '../../team/migrate.js';
import { listOperators, type Operator } from '../../team/operators.js';
import {
  addOperator,
  disableOperator,
  enableOperator,
  setOperatorPassword,
  setOperatorRole,
} from '../../operations/operators.js';
import { openTeamPool } from '../../team/pool.js';
import { probe } from '../../store/pg/connection.js';
import { selectOperatorStanding } from '../../store/pg/operators.js';
import { parseGivenDatabaseUrl } from '../../team/database-url.js';
import { transportOf, type TeamTls } from '../../team/tls.js';
import { TLS_OPTIONS, TLS_USAGE, tlsFromFlags } from '../team-tls.js';
import { publishSnapshot } from '../../team/snapshot/publish.js';
import { TeamFieldError, translatePgError } from '../../team/errors.js';
import {
  isTeamRole,
  isValidLogin,
  LOGIN_RULE,
  MIN_PASSWORD_LENGTH,
  TEAM_ROLES,
  type TeamRole,
} from '../../team/roles.shared.js';

/** The environment variables passwords may come from (PGPASSWORD is the one psql and pg_dump read). */
const SIGN_IN_PASSWORD_ENV = 'PGPASSWORD';
const NEW_PASSWORD_ENV = 'MERCHANT_DESK_NEW_PASSWORD';

const DB = '--database postgres://LOGIN@HOST:PORT/DATABASE';
const USAGE = [
  `merchant-desk team init ${DB} --admin LOGIN [--name NAME] [--no-password]`,
  `       merchant-desk team operators list ${DB} [--json]`,
  `       merchant-desk team operators add ${DB} --login LOGIN --role ${TEAM_ROLES.join('|')} --name NAME`,
  `       merchant-desk team operators disable|enable ${DB} --login LOGIN`,
  `       merchant-desk team operators role ${DB} --login LOGIN --role ROLE`,
  `       merchant-desk team operators password ${DB} --login LOGIN`,
  `       merchant-desk team snapshot ${DB} [--service-public-key PEM]   (as back_office or admin: new desks start from it)`,
  `  Every command takes ${TLS_USAGE}: a host other than this computer defaults to verify-full.`,
  `  The sign-in password (the URL's login) comes from ${SIGN_IN_PASSWORD_ENV}, a hidden prompt, or the first line of standard input;`,
  `  a new operator password from ${NEW_PASSWORD_ENV}, a hidden prompt, or the next line. Never from arguments.`,
].join('\n');

const OPERATOR_ACTIONS = ['list', 'add', 'disable', 'enable', 'role', 'password'] as const;
type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** Lines of standard input, read one at a time as they are needed (a pipe or a file). */
class StdinLines {
  private buf = '';
  private ended = false;
  private waiting: (() => void) | null = null;
  private started = false;
  constructor(private readonly stream: NodeJS.ReadableStream) {}

  private start(): void {
    if (this.started) return;
    this.started = true;
    const wake = () => {
      const w = this.waiting;
      this.waiting = null;
      w?.();
    };
    this.stream.on('data', (chunk: Buffer | string) => {
      this.buf += chunk.toString();
      if (this.buf.length > 64 * 1024) this.ended = true; // not a password: stop reading
      wake();
    });
    this.stream.on('end', () => {
      this.ended = true;
      wake();
    });
    this.stream.on('error', () => {
      this.ended = true;
      wake();
    });
    this.stream.resume();
  }

  /** The next line without its line end, or null when the input ended first. */
  async next(): Promise<string | null> {
    this.start();
    for (;;) {
      const nl = this.buf.search(/\r?\n/);
      if (nl >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(this.buf[nl] === '\r' ? nl + 2 : nl + 1);
        return line;
      }
      if (this.ended) {
        const last = this.buf;
        this.buf = '';
        return last.length > 0 ? last : null;
      }
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  close(): void {
    this.stream.pause();
  }
}

/** Where passwords come from: the environment, a hidden prompt on a terminal, or standard input. */
class Passwords {
  private readonly lines: StdinLines;
  private readonly tty: NodeJS.ReadStream | null;
  constructor(private readonly ctx: CliContext) {
    const stdin = ctx.io.stdin as NodeJS.ReadStream;
    this.tty = stdin.isTTY ? stdin : null;
    this.lines = new StdinLines(stdin);
  }

  async signIn(login: string): Promise<string> {
    const fromEnv = this.ctx.env[SIGN_IN_PASSWORD_ENV];
    if (fromEnv) return fromEnv;
    if (this.tty) return promptHidden(this.tty, this.ctx.io.stderr, `password of ${login}`);
    const line = await this.lines.next();
    if (!line) {
      throw new UsageError(
        `no password to sign in as ${login}: pipe it on standard input (first line), set ${SIGN_IN_PASSWORD_ENV}, ` +
          'or use --no-password when the server trusts this login without one',
      );
    }
    return line;
  }

  async newPassword(login: string): Promise<string> {
    const fromEnv = this.ctx.env[NEW_PASSWORD_ENV];
    let password: string;
    if (fromEnv) password = fromEnv;
    else if (this.tty) {
      password = await promptHidden(this.tty, this.ctx.io.stderr, `new password for ${login}`);
      checkNewPassword(password);
      const again = await promptHidden(this.tty, this.ctx.io.stderr, `new password for ${login}, again`);
      if (again !== password) throw new UsageError('the two passwords typed differ; nothing was changed');
    } else {
      const line = await this.lines.next();
      if (line === null) {
        throw new UsageError(
          `no new password for ${login}: pipe it on standard input (after the sign-in password, if that is piped too) or set ${NEW_PASSWORD_ENV}`,
        );
      }
      password = line;
    }
    checkNewPassword(password);
    return password;
  }

  close(): void {
    this.lines.close();
  }
}

function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new UsageError(`the new password must be at least ${MIN_PASSWORD_LENGTH} characters`);
}

/** Refuses a password given where it would be seen: an option, or inside the database URL. */
function refusePasswordsInArgs(args: string[]): void {
  for (const a of args) {
    if (/^--[a-z-]*password(=|$)/.test(a) && a !== '--no-password') {
      throw new UsageError(
        `passwords are never taken from arguments (they end up in shell history and the process list); ` +
          `pipe it on standard input, type it when asked, or set ${SIGN_IN_PASSWORD_ENV} (sign-in) / ${NEW_PASSWORD_ENV} (new password)`,
      );
    }
  }
}

function databaseUrl(value: string | undefined): URL {
  if (!value) throw new UsageError(`--database is required, e.g. ${DB.split(' ')[1]}`);
  try {
    return parseGivenDatabaseUrl(
      value,
      '--database',
      `give it in ${SIGN_IN_PASSWORD_ENV}, on standard input or when asked`,
    );
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** The TLS settings of --sslmode and --ssl-ca; a connection not protected off loopback is said on stderr. */
function tlsOf(
  values: { sslmode?: string | undefined; 'ssl-ca'?: string | undefined },
  url: URL,
  ctx: CliContext,
): TeamTls {
  const tls = tlsFromFlags(values.sslmode, values['ssl-ca']);
  const { warning } = transportOf(url, tls, ctx.env);
  if (warning) ctx.io.stderr.write(`merchant-desk: warning: ${warning}\n`);
  return tls;
}

function loginOfUrl(url: URL, env: NodeJS.ProcessEnv): string {
  return decodeURIComponent(url.username) || env.PGUSER || env.USER || '(your system login)';
}

/** Opens a pool for `url` with `password` set in memory only (never printed: messages name the login). */
function openSignedIn(url: URL, password: string | null, tls: TeamTls): pg.Pool {
  const u = new URL(url.href);
  if (password !== null) u.password = encodeURIComponent(password);
  return openTeamPool(u.href, { max: 2, tls });
}

/** Signs in now, so a wrong password is reported before a new one is asked for. */
async function checkSignIn(pool: pg.Pool, login: string): Promise<void> {
  try {
    await probe(pool);
  } catch (e) {
    throw translatePgError(e, 'sign in', login);
  }
}

function loginFlag(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required (the operator's PostgreSQL login)`);
  if (!isValidLogin(value)) throw new UsageError(`${flag}: must be ${LOGIN_RULE} (got ${JSON.stringify(value)})`);
  return value;
}

function roleFlag(value: string | undefined): TeamRole {
  if (!value) throw new UsageError(`--role is required: one of ${TEAM_ROLES.join(', ')}`);
  if (!isTeamRole(value))
    throw new UsageError(`--role must be one of ${TEAM_ROLES.join(', ')} (got ${JSON.stringify(value)})`);
  return value;
}

/** The database's field names, as the flags a user typed. */
function withFlagNames(e: unknown, loginFlagName = '--login'): unknown {
  if (!(e instanceof TeamFieldError)) return e;
  const flag: Record<string, string> = {
    login: loginFlagName,
    role: '--role',
    displayName: '--name',
    display_name: '--name',
    password: 'the new password',
  };
  const name = flag[e.field];
  if (!name) return e;
  return new Error(`${name}: ${e.message.slice(e.field.length + 2)}`, { cause: e });
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

async function runInit(args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseCommandArgs({
    args,
    options: {
      database: { type: 'string' },
      admin: { type: 'string' },
      name: { type: 'string' },
      'no-password': { type: 'boolean', default: false },
      ...TLS_OPTIONS,
    },
    strict: true,
    allowPositionals: false,
  });
  const url = databaseUrl(values.database);
  const tls = tlsOf(values, url, ctx);
  const admin = loginFlag(values.admin, '--admin');
  const displayName = (values.name ?? admin).trim();
  if (!displayName) throw new UsageError('--name must not be empty');
  const owner = loginOfUrl(url, ctx.env);
  const passwords = new Passwords(ctx);
  let pool: pg.Pool | undefined;
  try {
    pool = openSignedIn(url, values['no-password'] ? null : await passwords.signIn(owner), tls);
    await checkSignIn(pool, owner);
    const m = await migrate(pool);
    const db = url.pathname.slice(1);
    if (m.applied.length === 0) ctx.io.stdout.write(`the team schema in ${db} was already at version ${m.to}\n`);
    else if (m.from === 0)
      ctx.io.stdout.write(`created the team schema in ${db} (migrations ${m.applied.join(', ')}) as ${owner}\n`);
    else ctx.io.stdout.write(`migrated the team schema in ${db} from version ${m.from} to ${m.to}\n`);

    const found = await selectOperatorStanding(pool, admin);
    if (found) {
      ctx.io.stdout.write(
        `operator ${admin} already exists (${found.role}${found.disabled_at ? ', disabled' : ''}); left as it is\n`,
      );
      if (found.role !== 'admin' || found.disabled_at)
        ctx.io.stdout.write(
          `note: ${admin} is not an enabled admin; as ${owner}, use merchant-desk team operators role/enable to change that\n`,
        );
      return 0;
    }
    const password = await passwords.newPassword(admin);
    const tlsFlags =
      (values.sslmode ? ` --sslmode ${values.sslmode}` : '') +
      (values['ssl-ca'] ? ` --ssl-ca ${values['ssl-ca']}` : '');
    try {
      await addOperator({ pool }, { login: admin, role: 'admin', password, displayName });
    } catch (e) {
      throw withFlagNames(e, '--admin');
    }
    ctx.io.stdout.write(
      `added the admin operator ${admin} (${displayName})\n` +
        `next: add operators, signed in as ${admin}:\n` +
        `  merchant-desk team operators add --database postgres://${admin}@${url.host || 'HOST:PORT'}${url.pathname}${tlsFlags} --login LOGIN --role support --name "NAME"\n`,
    );
    return 0;
  } finally {
    passwords.close();
    await pool?.end().catch(() => undefined);
  }
}

async function runOperators(action: OperatorAction, args: string[], ctx: CliContext): Promise<number> {
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

/**
 * Publishes a snapshot of the record (team/snapshot/): a new desk starts from it instead of replaying
 * every event, after checking each of its rows against the record. Meant for a nightly timer.
 */
async function runSnapshot(args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseCommandArgs({
    args,
    options: {
      database: { type: 'string' },
      'no-password': { type: 'boolean', default: false },
      'service-public-key': { type: 'string' },
      ...TLS_OPTIONS,
    },
    strict: true,
    allowPositionals: false,
  });
  const url = databaseUrl(values.database);
  const tls = tlsOf(values, url, ctx);
  const me = loginOfUrl(url, ctx.env);
  // The desks check every signed event with the service public key: a snapshot made with the same check
  // carries their verdicts (without it, the writers' claims: taken only when every signed event verifies).
  const pemFile = values['service-public-key'];
  let pem: string | null = null;
  if (pemFile !== undefined) {
    try {
      pem = fs.readFileSync(pemFile, 'utf8');
    } catch (e) {
      throw new UsageError(`--service-public-key: cannot read ${pemFile} (${(e as Error).message})`);
    }
  }
  const passwords = new Passwords(ctx);
  let pool: pg.Pool | undefined;
  try {
    pool = openSignedIn(url, values['no-password'] ? null : await passwords.signIn(me), tls);
    await checkSignIn(pool, me);
    const started = Date.now();
    let told = started; // progress only for a copy that takes a while
    const s = await publishSnapshot({
      pool,
      now: () => Date.now(),
      ...(pem ? { keys: { servicePublicKey: pem } } : {}),
      onProgress: (p) => {
        if (Date.now() - told < 5_000) return;
        told = Date.now();
        ctx.io.stderr.write(
          `copied ${p.copiedSeq.toLocaleString('en')} of ${p.totalSeq.toLocaleString('en')} events\n`,
        );
      },
    });
    ctx.io.stdout.write(
      `published a snapshot of the record up to seq ${s.uptoSeq} (${s.events.toLocaleString('en')} events, ` +
        `${s.collections.toLocaleString('en')} collections, ${(s.bytes / 1048576).toFixed(1)} MiB) as ${s.madeBy} ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s; older snapshots were removed\n`,
    );
    return 0;
  } catch (e) {
    throw withFlagNames(e);
  } finally {
    passwords.close();
    await pool?.end().catch(() => undefined);
  }
}

export const teamCommand: Command = {
  name: 'team',
  summary: 'set up a team database (init), manage its operators, publish a snapshot for new desks',
  usage: USAGE,
  async run(args, ctx) {
    refusePasswordsInArgs(args);
    const [sub, ...rest] = args;
    if (sub === 'init') return runInit(rest, ctx);
    if (sub === 'snapshot') return runSnapshot(rest, ctx);
    if (sub === 'operators') {
      const [action, ...more] = rest;
      if (!action || !(OPERATOR_ACTIONS as readonly string[]).includes(action))
        throw new UsageError(
          `team operators needs one of ${OPERATOR_ACTIONS.join(', ')}${action ? ` (got ${JSON.stringify(action)})` : ''}`,
        );
      return runOperators(action as OperatorAction, more, ctx);
    }
    throw new UsageError(
      sub ? `unknown team command "${sub}"; use init, operators or snapshot` : 'team needs init, operators or snapshot',
    );
  },
};
