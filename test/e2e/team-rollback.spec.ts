// A record that went back in time, end to end on a desk (issue 29): a team desk (the Chromium shell app,
// its own data folder, connected through the CLI) follows the team record as it grows. While the desk is
// closed, the record loses its last events, as a restore of an older backup (or an asynchronous failover)
// leaves it. At the desk's next start and sign-in, its status bar and Settings, Team say that the team
// database lost those events, not that someone altered the record; the events it held that it cannot put
// back (another operator's unsigned word) are listed by reference and seq.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { appendEvents } from '../../main/team/events.js';
import { screenshotPath, startApp, type RunningApp } from './support/app.js';
import { expectAccessible } from './support/a11y.js';
import { cli, expectOk, initTeam, signInAtLockScreen, startTeamServer, type TeamServer } from './support/team.js';

test.describe.configure({ mode: 'serial', timeout: 240_000 });

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const ANN = { login: 'ann', role: 'support', name: 'Ann Support', password: 'ann password 1234' };
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-rollback-${process.pid}-${Date.now()}` };

let dir: string;
let team: TeamServer;
let sb: Sandbox;
let desk: RunningApp | undefined;

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-rollback-'));
  [team, sb] = await Promise.all([startTeamServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
});

test.afterAll(async () => {
  await desk?.stop();
  await sb?.close();
  await team?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('a desk says the team database lost its last events, lists what it cannot put back, and raises no alarm', async () => {
  await initTeam({ team, dir, admin: ADMIN, operators: [ANN] });
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
  await signInAtLockScreen(desk.page, ANN.login, ANN.password);

  // The record grows while the desk follows it: another operator's initialize answers (unsigned).
  const stored = await appendEvents(
    team.owner,
    Array.from({ length: 12 }, (_, i) => ({
      eventKey: `initiate:MD-RB-${i}:PENDING`,
      merchantReference: `MD-RB-${i}`,
      source: 'initiate' as const,
      kind: 'initialize_accepted',
      status: 'PENDING',
      amountMinor: 10_000 + i,
      currency: 'UGX',
      signature: 'not_applicable' as const,
      occurredAt: Date.now(),
    })),
  );
  const seqs = stored.stored.map((s) => s.seq);
  await expect(desk.page.getByTestId('status-record')).toHaveText(`Team record verified through seq ${seqs.at(-1)}`, {
    timeout: 30_000,
  });
  expect(await desk.stop()).toBe(0);
  desk = undefined;

  // The database comes back from an older backup: its last three events are gone.
  const lost = seqs.slice(-3);
  const c = await team.owner.connect();
  try {
    await c.query('BEGIN');
    await c.query('ALTER TABLE team.events DISABLE TRIGGER USER');
    await c.query('DELETE FROM team.events WHERE seq >= $1', [lost[0]]);
    await c.query('ALTER TABLE team.events ENABLE TRIGGER USER');
    await c.query('COMMIT');
  } finally {
    c.release();
  }

  desk = await startApp({ dataDir, env: KEYCHAIN });
  await signInAtLockScreen(desk.page, ANN.login, ANN.password);
  const page = desk.page;
  await expect(page.getByTestId('status-rollback')).toHaveText('Team database went back: 3 lost events not put back', {
    timeout: 30_000,
  });
  await expect(page.getByTestId('status-connection')).toContainText(
    `The team database lost events ${lost[0]}–${lost[2]}, probably a failover or a restore from backup; this desk holds them`,
  );
  await expect(page.getByTestId('status-connection')).not.toContainText('altered');
  await expect(page.getByTestId('status-record')).toHaveText(`Team record verified through seq ${seqs.at(-4)}`);
  await page.screenshot({ path: screenshotPath('team-rollback-status') });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  const section = page.getByRole('region', { name: 'Team record went back' });
  await expect(section).toContainText(`The team database lost events ${lost[0]}–${lost[2]}`);
  await expect(section).toContainText(`The head this desk had verified, kept as evidence: seq ${seqs.at(-1)}`);
  const table = section.getByRole('table', { name: 'Lost events not put back' });
  for (const [i, seq] of lost.entries()) {
    const row = table.getByRole('row').nth(i + 1);
    await expect(row).toContainText(`MD-RB-${9 + i}`);
    await expect(row).toContainText(String(seq));
    await expect(row).toContainText('not signed by the service');
  }
  await expect(page.getByTestId('team-record-check')).not.toHaveAttribute('role', 'alert');
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('team-rollback-settings'), fullPage: true });
  await expectAccessible(page, 'Settings, Team after the record went back');
});
