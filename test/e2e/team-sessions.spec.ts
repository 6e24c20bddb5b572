// Sessions follow the team database (issue 28, problems 4 and 5), every part a real process: a
// PostgreSQL server of this spec's own, the CLI for `team init`, `team operators` and `connect`, `serve`
// polling the card options, and three desktops on the Chromium shell: S signed in as sam (support),
// B as boss and D as ada (both admins). An admin's change of sam's role reaches S within seconds (status
// bar, navigation, Take payment), and a disable locks S saying an admin disabled the login; an
// operator added or re-roled at B shows in D's open operator list without D doing anything.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { startServe, type Serve } from '../serve/harness.js';
import { startApp, type RunningApp } from './support/app.js';
import {
  cli,
  connectTeamDesk,
  expectOk,
  signInAtLockScreen,
  startTeamServer,
  type TeamServer,
} from './support/team.js';

test.describe.configure({ mode: 'serial', timeout: 300_000 });

const BOSS = { login: 'boss', password: 'boss password 1234' };
const ADA = { login: 'ada', role: 'admin', name: 'Ada Admin', password: 'ada password 12345' };
const SAM = { login: 'sam', role: 'support', name: 'Sam Support', password: 'sam password 12345' };
const RECEIVER = { login: 'serve_rx', role: 'receiver', name: 'serve', password: 'serve password 1234' };
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-sessions-${process.pid}-${Date.now()}` };
/** "Within a few seconds": a desk hears the change when it commits; past this the test fails. */
const FEW_SECONDS = 8_000;

let dir: string;
let team: TeamServer;
let sb: Sandbox;
let serve: Serve | undefined;
const desks: RunningApp[] = [];
let deskS: Page;
let deskB: Page;
let deskD: Page;

/** `merchant-desk team operators ACTION ... --login LOGIN` signed in as boss. */
async function asBoss(args: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  const [action, ...rest] = args;
  const r = await cli(
    ['--data-dir', path.join(dir, 'cli'), 'team', 'operators', action!, '--database', team.urlAs(BOSS.login), ...rest],
    { stdin: `${BOSS.password}\n`, env },
  );
  expectOk(r, `team operators ${args.join(' ')}`);
}

const nav = (p: Page) => p.getByRole('navigation', { name: 'Main' });
const operatorRow = (p: Page, login: string) =>
  p.getByRole('table', { name: 'Operators' }).getByRole('row', { name: new RegExp(`^${login}\\b`) });

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-sessions-'));
  [team, sb] = await Promise.all([startTeamServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
  const owner = `postgres://${team.server.superuser}@${team.server.host}:${team.server.port}/${team.database}`;
  const init = await cli(
    ['--data-dir', path.join(dir, 'cli'), 'team', 'init', '--database', owner, '--admin', BOSS.login],
    {
      stdin: `${team.server.password}\n${BOSS.password}\n`,
    },
  );
  expectOk(init, 'team init');
  for (const op of [ADA, SAM, RECEIVER])
    await asBoss(['add', '--login', op.login, '--role', op.role, '--name', op.name], {
      MERCHANT_DESK_NEW_PASSWORD: op.password,
    });

  // serve polls the card options every desk's Take payment offers.
  const creds = path.join(dir, 'credentials');
  fs.mkdirSync(creds, { mode: 0o700 });
  fs.writeFileSync(path.join(creds, 'signing-key'), `${sb.signingKey}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(creds, 'service-public-key.pem'), sb.servicePublicKeyPem, { mode: 0o600 });
  serve = await startServe(
    [
      '--data-dir',
      path.join(dir, 'serve'),
      '--database',
      team.urlAs(RECEIVER.login),
      '--listen',
      '127.0.0.1:0',
      '--service-url',
      sb.baseUrl,
    ],
    {
      MERCHANT_DESK_MERCHANT_PUBLIC_KEY: sb.publicKey,
      MERCHANT_DESK_MERCHANT_SECRET_KEY: sb.secretKey,
      PGPASSWORD: RECEIVER.password,
      CREDENTIALS_DIRECTORY: creds,
    },
  );

  const data = await Promise.all(
    [SAM, BOSS, ADA].map((op) => connectTeamDesk({ dir, sandbox: sb, team, login: op.login, env: KEYCHAIN })),
  );
  for (const d of data) desks.push(await startApp({ dataDir: d, env: KEYCHAIN }));
  [deskS, deskB, deskD] = desks.map((d) => d.page) as [Page, Page, Page];
  await signInAtLockScreen(deskS, SAM.login, SAM.password);
  await signInAtLockScreen(deskB, BOSS.login, BOSS.password);
  await signInAtLockScreen(deskD, ADA.login, ADA.password);
});

test.afterAll(async () => {
  const codes = await Promise.all(desks.map((d) => d.stop()));
  let serveCode: number | null | undefined;
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    serveCode = await serve.exited;
  }
  await sb?.close();
  await team?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  for (const code of codes) expect(code, 'a desk exit code').toBe(0);
  if (serveCode !== undefined) expect(serveCode).toBe(0);
});

test("an operator added, re-roled or disabled at one admin desk shows in the other's open list", async () => {
  for (const p of [deskB, deskD]) {
    await nav(p).getByRole('link', { name: 'Settings' }).click();
    await expect(operatorRow(p, SAM.login)).toBeVisible();
  }
  // D only looks: nothing focused in a field, no dialog, so its list may re-read whenever told.
  await expect(operatorRow(deskD, 'cara')).toHaveCount(0);

  const form = deskB.getByRole('form', { name: 'Add operator' });
  await form.getByLabel('Login').fill('cara');
  await form.getByLabel('Name').fill('Cara Finance');
  await form.getByLabel('Role').selectOption('finance');
  await form.getByLabel('Initial password', { exact: true }).fill('cara password 1234');
  await form.getByLabel('Initial password again').fill('cara password 1234');
  await form.getByRole('button', { name: 'Add operator' }).click();
  await expect(form.getByRole('status')).toContainText('Added cara');

  await expect(operatorRow(deskD, 'cara')).toContainText('Cara Finance', { timeout: FEW_SECONDS });
  await expect(operatorRow(deskD, 'cara')).toContainText('Enabled');

  // Re-roled and disabled through the CLI: D's list follows those too.
  await asBoss(['role', '--login', 'cara', '--role', 'back_office']);
  await expect(deskD.getByRole('combobox', { name: 'Role of cara' })).toHaveValue('back_office', {
    timeout: FEW_SECONDS,
  });
  await asBoss(['disable', '--login', 'cara']);
  await expect(operatorRow(deskD, 'cara')).toContainText('Disabled', { timeout: FEW_SECONDS });
  await deskD
    .getByRole('table', { name: 'Operators' })
    .screenshot({ path: path.join(os.tmpdir(), 'md-e2e-sessions-admin-list.png') });
});

test("an admin moves sam to finance and back: sam's desk follows within seconds, without signing in again", async () => {
  const s = deskS;
  await nav(s).getByRole('link', { name: 'Take payment' }).click();
  const form = s.getByRole('form', { name: 'Take payment' });
  await expect(form.getByRole('button', { name: /^Charge/ })).toBeVisible({ timeout: 30_000 });
  await expect(s.getByTestId('status-team')).toHaveText(`Signed in: ${SAM.login} (support)`);
  await expect(nav(s).getByRole('link', { name: 'Take payment' })).not.toContainText('not for your role');

  // Boss, at desk B, moves sam to finance in the operator list.
  for (const p of [deskB, deskD]) await nav(p).getByRole('link', { name: 'Settings' }).click();
  await deskB.getByRole('combobox', { name: `Role of ${SAM.login}` }).selectOption('finance');
  await deskB.getByRole('button', { name: `Change the role of ${SAM.login}` }).click();
  await expect(deskB.getByRole('status').filter({ hasText: `${SAM.login} is now Finance.` })).toBeVisible();

  // S follows at once: the status bar, Take payment (no Charge, who can instead) and the navigation.
  await expect(s.getByTestId('status-team')).toHaveText(`Signed in: ${SAM.login} (finance)`, { timeout: FEW_SECONDS });
  await expect(s.getByRole('button', { name: /^Charge/ })).toHaveCount(0);
  await expect(s.getByRole('form', { name: 'Take payment' })).toHaveCount(0);
  await expect(s.getByText('Taking payments is for support and admins.')).toBeVisible();
  await expect(nav(s).getByRole('link', { name: 'Take payment' })).toContainText('not for your role');
  // ... and says why, naming who changed it.
  await expect(s.getByRole('status').filter({ hasText: `${BOSS.login} changed your role` })).toContainText('finance');
  await s.screenshot({ path: path.join(os.tmpdir(), 'md-e2e-sessions-moved-to-finance.png') });
  // D, the other admin, sees sam's new role in its list.
  await expect(deskD.getByRole('combobox', { name: `Role of ${SAM.login}` })).toHaveValue('finance', {
    timeout: FEW_SECONDS,
  });

  // Moved back (through the CLI this time): Charge is offered again.
  await asBoss(['role', '--login', SAM.login, '--role', 'support']);
  await expect(s.getByTestId('status-team')).toHaveText(`Signed in: ${SAM.login} (support)`, { timeout: FEW_SECONDS });
  await expect(s.getByRole('form', { name: 'Take payment' }).getByRole('button', { name: /^Charge/ })).toBeVisible();
  await expect(nav(s).getByRole('link', { name: 'Take payment' })).not.toContainText('not for your role');
});

test("an admin disables sam: sam's desk locks and says an admin disabled the login", async () => {
  const s = deskS;
  await asBoss(['disable', '--login', SAM.login]);
  await expect(s.getByRole('heading', { level: 1, name: `Sign in as ${SAM.login}` })).toBeVisible({
    timeout: FEW_SECONDS,
  });
  await expect(s.getByRole('main').getByText(`An admin disabled the login ${SAM.login}`)).toBeVisible();
  await s.screenshot({ path: path.join(os.tmpdir(), 'md-e2e-sessions-disabled.png') });
});
