// Each profile is a workspace of its own: the embedded profile's balances and collections never show on
// the sandbox profile and back. "The sandbox profile" is a second sandbox started here, its keys in the
// real OS keychain (run under scripts/with-keyring.sh), connected with the CLI while the app runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { newDataDir, openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { runCli } from '../support/cli.js';
import { openProfileDatabase } from '../../main/settings/profile-database.js';
import { recordBalanceRun } from '../../main/store/sqlite/balances.js';
import type { Db } from '../../main/store/sqlite/connection.js';

let app: RunningApp | undefined;
let sb: Sandbox | undefined;
let sbDir: string | undefined;

test.afterEach(async () => {
  await app?.stop();
  if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
  app = undefined;
  await sb?.close();
  if (sbDir) fs.rmSync(sbDir, { recursive: true, force: true });
  sb = undefined;
});

function addCollection(db: Db, reference: string): void {
  const now = Date.now();
  db.prepare(
    `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, customer_name, operator, redirect_url,
      card_brand, card_last4, status, status_changed_at)
     VALUES (?, ?, 15000, 'UGX', 'Phone order 1234', 'Amina N', 'agent', 'https://merchant-desk.invalid/return', 'visa', '4242', 'COMPLETED', ?)`,
  ).run(reference, now, now);
}

const cli = (dataDir: string, args: string[], stdin: string) => runCli(['--data-dir', dataDir, ...args], { stdin });

test("switching embedded -> sandbox shows only that profile's balances and collections; switching back shows the embedded ones", async () => {
  const dataDir = newDataDir();
  // Each profile's own data from before: a wallet only the embedded profile has seen, a collection each.
  const embedded = openProfileDatabase(dataDir, 'embedded');
  const now = Date.now();
  recordBalanceRun(embedded, {
    startedAt: now,
    finishedAt: now,
    result: {
      ok: true,
      value: [
        {
          currency: 'EUR',
          walletType: 'MERCHANT_COLLECTION',
          availableMinor: 70_000,
          actualMinor: 70_000,
          unclearedMinor: 0,
          reserveMinor: 0,
        },
      ],
    },
  });
  addCollection(embedded, 'MD-EMBEDDED-0001');
  embedded.close();
  const sandboxDb = openProfileDatabase(dataDir, 'sandbox');
  addCollection(sandboxDb, 'MD-SANDBOX-0001');
  sandboxDb.close();

  sbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-sb-'));
  sb = await startSandbox({ stateDir: sbDir });
  app = await startApp({ dataDir });
  const { page } = app;
  await expect(page.getByRole('region', { name: 'EUR balances' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'UGX balances' })).toBeVisible();

  // Connect the sandbox profile from the CLI while the app shows Balances: the app switches workspace
  // and the screen reloads from the sandbox profile's database.
  const c = await cli(
    dataDir,
    [
      'connect',
      '--profile',
      'sandbox',
      '--base-url',
      sb.baseUrl,
      '--public-key',
      sb.publicKey,
      '--service-key',
      sb.servicePublicKeyPath,
      '--secret-key-stdin',
      '--signing-key-stdin',
    ],
    `${sb.secretKey}\n${sb.signingKey}\n`,
  );
  expect(c.code, `${c.stdout}${c.stderr}`).toBe(0);
  await expect(page.getByTestId('status-profile')).toHaveText(/sandbox/);
  await expect(page.getByTestId('status-connection')).toHaveText(/Online/, { timeout: 30_000 });
  await expect(page.getByRole('region', { name: 'UGX balances' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'EUR balances' })).toHaveCount(0);
  await openScreen(page, 'Collections');
  await expect(page.getByText('MD-SANDBOX-0001')).toBeVisible();
  await expect(page.getByText('MD-EMBEDDED-0001')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('profiles-sandbox-collections') });

  // Back to embedded from Settings: its sandbox starts again and its data is all there.
  await openScreen(page, 'Settings');
  const conn = page.getByRole('form', { name: 'Connection' });
  await conn.getByLabel('Profile').selectOption('embedded');
  await conn.getByRole('button', { name: 'Save connection' }).click();
  await expect(page.getByTestId('status-profile')).toHaveText(/embedded/);
  await expect(page.getByRole('form', { name: 'Connection' }).getByLabel('Profile')).toHaveValue('embedded');
  await openScreen(page, 'Collections');
  await expect(page.getByText('MD-EMBEDDED-0001')).toBeVisible();
  await expect(page.getByText('MD-SANDBOX-0001')).toHaveCount(0);
  await openScreen(page, 'Balances');
  await expect(page.getByRole('region', { name: 'EUR balances' })).toBeVisible();
  await expect(page.getByTestId('status-connection')).toHaveText(/Online/, { timeout: 30_000 });
  expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'active-profile.json'), 'utf8'))).toEqual({
    profile: 'embedded',
  });

  // Clean the keychain: the sandbox profile's keys belong to this test.
  await openScreen(page, 'Settings');
  await page.getByRole('form', { name: 'Connection' }).getByLabel('Profile').selectOption('sandbox');
  await page.getByRole('form', { name: 'Connection' }).getByRole('button', { name: 'Save connection' }).click();
  await expect(page.getByTestId('status-profile')).toHaveText(/sandbox/);
  for (const label of ['Public key', 'Secret key', 'Signing key']) {
    const row = page.getByRole('form', { name: label });
    await row.getByRole('button', { name: 'Clear' }).click();
    await expect(row.getByText('not set')).toBeVisible();
  }
});
