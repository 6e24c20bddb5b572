// A team desk connected through PgBouncer in transaction mode (issue 29), end to end: `connect --remember`
// warns that notifications do not reach the desk and names the fix; the app (the Chromium shell, its own
// data folder) signs in, stays usable, and its status bar says "Notifications are not arriving: a
// transaction-mode pool? This desk catches up every 1 s", a notice names the fix, and so does Settings, Team.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { startApp, type RunningApp } from './support/app.js';
import { cli, expectOk, initTeam, signInAtLockScreen, startTeamServer, type TeamServer } from './support/team.js';

test.describe.configure({ mode: 'serial', timeout: 240_000 });

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const ANN = { login: 'ann', role: 'support', name: 'Ann Support', password: 'ann password 1234' };
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-pooler-${process.pid}-${Date.now()}` };

let dir: string;
let team: TeamServer;
let sb: Sandbox;
let bouncer: PgBouncer | undefined;
let desk: RunningApp | undefined;

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-pooler-'));
  [team, sb] = await Promise.all([startTeamServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
});

test.afterAll(async () => {
  await desk?.stop();
  await bouncer?.stop();
  await sb?.close();
  await team?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('a desk behind a transaction-mode PgBouncer says notifications are not arriving and names the fix', async () => {
  await initTeam({ team, dir, admin: ADMIN, operators: [ANN] });
  // The pool in front of the database, started once the logins exist (it reads their SCRAM verifiers).
  bouncer = await startPgBouncer(team.server, 'transaction');

  const dataDir = fs.mkdtempSync(path.join(dir, 'desk-'));
  const pem = path.join(dir, 'service-public-key.pem');
  fs.writeFileSync(pem, sb.servicePublicKeyPem);
  const connected = await cli(
    [
      '--data-dir',
      dataDir,
      'connect',
      '--profile',
      'team',
      '--base-url',
      sb.baseUrl,
      '--public-key',
      sb.publicKey,
      '--service-key',
      pem,
      '--secret-key-stdin',
      '--database',
      `postgres://${ANN.login}@127.0.0.1:${bouncer.port}/${team.database}`,
      '--login',
      ANN.login,
      '--remember',
    ],
    { stdin: `${sb.secretKey}\n${ANN.password}\n`, env: KEYCHAIN },
  );
  expectOk(connected, 'connect --profile team --remember');
  expect(connected.stderr).toContain(
    'merchant-desk: warning: Notifications from the team database do not reach this desk',
  );
  expect(connected.stderr).toContain(
    'To fix it, connect this desk directly to PostgreSQL or through a session-mode pool (PgBouncer pool_mode = session).',
  );

  // Remembered: the desk signs in by itself.
  desk = await startApp({ dataDir, env: KEYCHAIN });
  const page = desk.page;
  if (await page.getByRole('heading', { level: 1, name: `Sign in as ${ANN.login}` }).isVisible())
    await signInAtLockScreen(page, ANN.login, ANN.password);
  await expect(page.getByTestId('status-connection')).toHaveText(
    'Online — Notifications are not arriving: a transaction-mode pool? This desk catches up every 1 s',
    { timeout: 30_000 },
  );
  await expect(
    page.getByText(/connect this desk directly to PostgreSQL or through a session-mode pool/).first(),
  ).toBeVisible();
  await page.screenshot({ path: path.join('test-results', 'team-pooler-status.png') });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  await expect(page.getByTestId('team-notifications-check')).toContainText(
    'Notifications from the team database do not reach this desk: a pool in transaction mode',
  );
  await page.getByTestId('team-notifications-check').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join('test-results', 'team-pooler-settings.png') });
});
