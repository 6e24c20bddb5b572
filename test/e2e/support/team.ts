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
