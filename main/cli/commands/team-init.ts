// merchant-desk team init: the team schema's migrations as the database owner, then the first admin
// (left as it is when that login is already an operator).
import type pg from 'pg';
import { parseCommandArgs, UsageError, type CliContext } from '../command.js';
import { migrate } from '../../team/migrate.js';
import { addOperator } from '../../operations/operators.js';
import { selectOperatorStanding } from '../../store/pg/operators.js';
import { TLS_OPTIONS } from '../team-tls.js';
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

export async function runInit(args: string[], ctx: CliContext): Promise<number> {
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
