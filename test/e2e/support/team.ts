// Team workspace e2e helpers: a PostgreSQL server of the spec's own (Playwright has no vitest global
// set-up), the real CLI for `team init`, `team operators add` and `connect --profile team`, and signing
// in at a team desk's lock screen. Passwords go to the CLI on standard input or in the environment, as
// docs/team-setup.md tells a user to, never in argv.
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import pg from 'pg';
import type { Sandbox } from '../../../sandbox/index.js';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from '../../support/postgres-server.js';
import type { CliRun } from '../../support/cli.js';

/** `merchant-desk ARGS` through tsx, as the e2e apps start; stdin is written and closed. */
import { runCli } from '../../support/cli.js';
export { runCli as cli };

/** Fails with the command's output when it did not exit 0. */
export function expectOk(r: CliRun, what: string): void {
  expect(r.code, `${what}:\n${r.stdout}\n${r.stderr}`).toBe(0);
}

export interface TeamServer {
  server: PgServerInfo;
  /** The empty database the team is made in. */
  database: string;
  /** postgres://LOGIN@127.0.0.1:PORT/DATABASE, no password (the CLI and the desks refuse one in a URL). */
  urlAs(login: string): string;
  /** The superuser, for checks against the database itself. */
  owner: pg.Pool;
  stop(): Promise<void>;
}

/** A fresh PostgreSQL server with one empty database `team`; stop() removes it all. */
export async function startTeamServer(): Promise<TeamServer> {
  const server = await startServer();
  const admin = new pg.Client({ connectionString: serverUrl(server, 'postgres') });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE team');
  } finally {
    await admin.end();
  }
  const owner = new pg.Pool({ connectionString: serverUrl(server, 'team'), max: 2 });
  return {
    server,
    database: 'team',
    urlAs: (login) => `postgres://${login}@${server.host}:${server.port}/team`,
    owner,
    async stop() {
      await owner.end().catch(() => undefined);
      stopServerSync(server.dir, server.binDir);
    },
  };
}

/** Signs in at a team desk's lock screen ("Sign in as LOGIN") with the operator's password. */
export async function signInAtLockScreen(page: Page, login: string, password: string): Promise<void> {
  await expect(page.getByRole('heading', { level: 1, name: `Sign in as ${login}` })).toBeVisible({ timeout: 30_000 });
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible({ timeout: 30_000 });
}

/**
 * A new data folder in `dir` whose team profile is connected for `login`, through the CLI as a user
 * would (`connect --profile team`, the sandbox as the service); returns the folder.
 */
export async function connectTeamDesk(o: {
  dir: string;
  sandbox: Sandbox;
  team: TeamServer;
  login: string;
  env: NodeJS.ProcessEnv;
}): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(o.dir, `desk-${o.login}-`));
  const pem = path.join(o.dir, 'service-public-key.pem');
  fs.writeFileSync(pem, o.sandbox.servicePublicKeyPem);
  const r = await runCli(
    [
      '--data-dir',
      dataDir,
      'connect',
      '--profile',
      'team',
      '--base-url',
      o.sandbox.baseUrl,
      '--public-key',
      o.sandbox.publicKey,
      '--service-key',
      pem,
      '--secret-key-stdin',
      '--database',
      o.team.urlAs(o.login),
      '--login',
      o.login,
    ],
    { stdin: `${o.sandbox.secretKey}\n`, env: o.env },
  );
  expectOk(r, `connect --profile team as ${o.login}`);
  return dataDir;
}

/** An operator as the specs declare them: a login, a role, a name and a first password. */
export interface Operator {
  login: string;
  role: string;
  name: string;
  password: string;
}

/**
 * The team's schema and its operators through the CLI, as an admin would set them up: `team init` as the
 * database owner with `admin` as the first admin, then `team operators add` for each of `operators`.
 */
export async function initTeam(o: {
  team: TeamServer;
  dir: string;
  admin: Pick<Operator, 'login' | 'password'>;
  operators: Operator[];
}): Promise<void> {
  const cliDir = path.join(o.dir, 'cli');
  const { server } = o.team;
  const owner = `postgres://${server.superuser}@${server.host}:${server.port}/${o.team.database}`;
  expectOk(
    await runCli(['--data-dir', cliDir, 'team', 'init', '--database', owner, '--admin', o.admin.login], {
      stdin: `${server.password}\n${o.admin.password}\n`,
    }),
    'team init',
  );
  for (const op of o.operators) {
    const args = ['--data-dir', cliDir, 'team', 'operators', 'add', '--database', o.team.urlAs(o.admin.login)];
    expectOk(
      await runCli([...args, '--login', op.login, '--role', op.role, '--name', op.name], {
        stdin: `${o.admin.password}\n`,
        env: { MERCHANT_DESK_NEW_PASSWORD: op.password },
      }),
      `team operators add ${op.login}`,
    );
  }
}
