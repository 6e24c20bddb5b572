// Tamper evidence on a desk, end to end: a team desk (the Chromium shell app, its own data folder,
// connected through the CLI) says in its status bar and in Settings, Team that it verified the team
// record through seq N. The server's superuser then rewrites an event the desk verified, with the
// append-only trigger disabled; at the desk's next start and sign-in its re-check raises the alarm,
// naming the seq, in the status bar and in Settings, Team.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { appendEvents } from '../../main/team/events.js';
import { startApp, type RunningApp } from './support/app.js';
import { cli, expectOk, signInAtLockScreen, startTeamServer, type TeamServer } from './support/team.js';

test.describe.configure({ mode: 'serial', timeout: 240_000 });

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const ANN = { login: 'ann', role: 'support', name: 'Ann Support', password: 'ann password 1234' };
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-record-${process.pid}-${Date.now()}` };

let dir: string;
let team: TeamServer;
let sb: Sandbox;
let desk: RunningApp | undefined;

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-record-'));
  [team, sb] = await Promise.all([startTeamServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
});

test.afterAll(async () => {
  await desk?.stop();
  await sb?.close();
  await team?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function openSettings(app: RunningApp) {
  await app.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await app.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
}

test('a desk shows the record verified, and the alarm after the superuser rewrote a verified event', async () => {
  const owner = `postgres://${team.server.superuser}@${team.server.host}:${team.server.port}/${team.database}`;
  const cliDir = path.join(dir, 'cli');
  expectOk(
    await cli(['--data-dir', cliDir, 'team', 'init', '--database', owner, '--admin', ADMIN.login], {
      stdin: `${team.server.password}\n${ADMIN.password}\n`,
    }),
    'team init',
  );
  expectOk(
    await cli(
      [
        '--data-dir',
        cliDir,
        'team',
        'operators',
        'add',
        '--database',
        team.urlAs(ADMIN.login),
        '--login',
        ANN.login,
        '--role',
        ANN.role,
        '--name',
        ANN.name,
      ],
      { stdin: `${ADMIN.password}\n`, env: { MERCHANT_DESK_NEW_PASSWORD: ANN.password } },
    ),
    'team operators add',
  );
  // Some history: callbacks as serve records them.
  const stored = await appendEvents(
    team.owner,
    Array.from({ length: 12 }, (_, i) => ({
      eventKey: `callback:MD-REC-${i}:COMPLETED`,
      merchantReference: `MD-REC-${i}`,
      source: 'callback' as const,
      kind: 'outcome',
      status: 'COMPLETED',
      amountMinor: 10_000 + i,
      currency: 'UGX',
      signature: 'verified' as const,
      payload: `{"merchant_reference":"MD-REC-${i}"}`,
      occurredAt: Date.now(),
    })),
  );
  const top = stored.stored.at(-1)!.seq;

  const dataDir = fs.mkdtempSync(path.join(dir, 'desk-'));
  const pem = path.join(dir, 'service-public-key.pem');
  fs.writeFileSync(pem, sb.servicePublicKeyPem);
  expectOk(
    await cli(
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
        team.urlAs(ANN.login),
        '--login',
        ANN.login,
      ],
      { stdin: `${sb.secretKey}\n`, env: KEYCHAIN },
    ),
    'connect --profile team',
  );

  desk = await startApp({ dataDir, env: KEYCHAIN });
  await expect(desk.page.getByRole('heading', { level: 1, name: `Sign in as ${ANN.login}` })).toBeVisible({
    timeout: 30_000,
  });
  await signInAtLockScreen(desk.page, ANN.login, ANN.password);
  await expect(desk.page.getByTestId('status-record')).toHaveText(`Team record verified through seq ${top}`, {
    timeout: 30_000,
  });
  await openSettings(desk);
  await expect(desk.page.getByTestId('team-record-check')).toContainText(
    `Team record verified through seq ${top} (whole record re-checked`,
  );
  expect(await desk.stop()).toBe(0);
  desk = undefined;

  // The superuser rewrites a verified callback: FAILED instead of COMPLETED.
  const victim = stored.stored[4]!.seq;
  const c = await team.owner.connect();
  try {
    await c.query('BEGIN');
    await c.query('ALTER TABLE team.events DISABLE TRIGGER USER');
    await c.query("UPDATE team.events SET status = 'FAILED' WHERE seq = $1", [victim]);
    await c.query('ALTER TABLE team.events ENABLE TRIGGER USER');
    await c.query('COMMIT');
  } finally {
    c.release();
  }

  desk = await startApp({ dataDir, env: KEYCHAIN });
  await signInAtLockScreen(desk.page, ANN.login, ANN.password);
  await expect(desk.page.getByTestId('status-connection')).toContainText(
    `Team record altered: seq ${victim} does not match its hash chain`,
    { timeout: 30_000 },
  );
  await expect(desk.page.getByTestId('status-record')).toHaveText(`Team record altered at seq ${victim}`);
  await openSettings(desk);
  await expect(desk.page.getByTestId('team-record-check')).toHaveAttribute('role', 'alert');
  await expect(desk.page.getByTestId('team-record-check')).toContainText(
    `Team record altered: seq ${victim} does not match its hash chain (its content is not what was recorded`,
  );
});
