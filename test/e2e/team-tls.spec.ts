// A team over TLS end to end: a PostgreSQL server of this spec's own with ssl=on and `hostssl` only
// (so nothing connects in plain text), certificates made with openssl, `team init`, `team operators add`
// and `connect --profile team` given the team's CA with --ssl-ca, and a desk (the Chromium shell app)
// that signs in and shows its TLS settings in Settings, Connection. Choosing another CA there signs the
// desk out, and the team database, whose certificate that CA did not sign, is not reached.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { test, expect } from '@playwright/test';
import { openTeamPool } from '../../main/team/pool.js';
import { serverUrl, startServer, stopServerSync, type PgServerInfo } from '../support/postgres-server.js';
import { makeTestCertificates, type TestCertificates } from '../support/tls-certs.js';
import { openScreen, startApp, type RunningApp } from './support/app.js';
import { cli, expectOk, signInAtLockScreen } from './support/team.js';

test.describe.configure({ mode: 'serial', timeout: 300_000 });

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const ANN = { login: 'ann', password: 'ann password 1234' };
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-tls-${process.pid}-${Date.now()}` };

let dir: string;
let certs: TestCertificates;
let server: PgServerInfo;
let desk: RunningApp | undefined;
const urlAs = (login: string) => `postgres://${login}@127.0.0.1:${server.port}/team`;

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-tls-'));
  fs.mkdirSync(path.join(dir, 'certs'));
  certs = makeTestCertificates(path.join(dir, 'certs'));
  server = await startServer({ tls: { cert: certs.pem['db.crt']!, key: certs.pem['db.key']! } });
  const admin = openTeamPool(serverUrl(server, 'postgres'), {
    tls: { sslmode: 'verify-full', ca: certs.pem['team-ca.crt']! },
  });
  try {
    await admin.query('CREATE DATABASE team');
  } finally {
    await admin.end();
  }
});

test.afterAll(async () => {
  await desk?.stop();
  if (server) stopServerSync(server.dir, server.binDir);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the CLI sets the team up over TLS, and a desk connected with --ssl-ca signs in and shows it in Settings', async () => {
  const ca = ['--ssl-ca', certs.file('team-ca.crt')];
  const cliDir = path.join(dir, 'cli');
  const init = await cli(
    ['--data-dir', cliDir, 'team', 'init', '--database', urlAs(server.superuser), '--admin', ADMIN.login, ...ca],
    { stdin: `${server.password}\n${ADMIN.password}\n` },
  );
  expectOk(init, 'team init');
  const add = await cli(
    [
      '--data-dir',
      cliDir,
      'team',
      'operators',
      'add',
      '--database',
      urlAs(ADMIN.login),
      '--login',
      ANN.login,
      '--role',
      'support',
      '--name',
      'Ann',
      ...ca,
    ],
    { stdin: `${ADMIN.password}\n`, env: { MERCHANT_DESK_NEW_PASSWORD: ANN.password } },
  );
  expectOk(add, 'team operators add');

  const dataDir = path.join(dir, 'desk');
  fs.mkdirSync(dataDir);
  const servicePem = path.join(dir, 'service.pem');
  const { publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(servicePem, publicKey.export({ type: 'spki', format: 'pem' }));
  const connect = await cli(
    [
      '--data-dir',
      dataDir,
      'connect',
      '--profile',
      'team',
      '--base-url',
      'https://api.example.invalid',
      '--public-key',
      'pk_test_e2e_tls',
      '--service-key',
      servicePem,
      '--secret-key-stdin',
      '--no-verify',
      '--database',
      urlAs(ANN.login),
      '--login',
      ANN.login,
      ...ca,
    ],
    { stdin: 'sk_test_e2e_tls\n', env: KEYCHAIN },
  );
  expectOk(connect, 'connect --profile team');

  desk = await startApp({ dataDir, env: KEYCHAIN });
  const page = desk.page;
  // The server takes TLS only: signing in at all means the desk spoke TLS, checked against the team's CA.
  await signInAtLockScreen(page, ANN.login, ANN.password);
  await expect(page.getByTestId('status-transport')).toHaveCount(0);
  await openScreen(page, 'Settings');
  const mode = page.getByLabel('TLS to the team database');
  await expect(mode).toHaveValue('');
  await expect(page.getByText('Now: verify-full.')).toBeVisible();
  await expect(page.getByTestId('team-ca-info')).toContainText('CN=team-ca');

  // Another CA, read by the window (this shell has no dialog in main): the desk signs out at once, and
  // the team database, whose certificate that CA did not sign, is not reached when Ann signs in again.
  await page.getByLabel('CA certificate of the team database').setInputFiles(certs.file('other-ca.crt'));
  await expect(page.getByRole('heading', { level: 1, name: `Sign in as ${ANN.login}` })).toBeVisible({
    timeout: 30_000,
  });
  await page.getByLabel('Password', { exact: true }).fill(ANN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('status-connection')).toContainText(/unreachable/, { timeout: 30_000 });
});
