// Settings on the sandbox profile through the UI, keys in the real OS keychain (run the e2e suite under
// scripts/with-keyring.sh). A second sandbox started here stands in for a remote sandbox service.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';

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

test('keys are set and cleared without ever being shown again; the service key shows its size and fingerprint', async () => {
  app = await startApp();
  const { page } = app;
  // "The sandbox profile": a second sandbox (switching profile stops the embedded one).
  sbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-sb-'));
  sb = await startSandbox({ stateDir: sbDir });
  const info = {
    base_url: sb.baseUrl,
    public_key: sb.publicKey,
    secret_key: sb.secretKey,
    signing_key: sb.signingKey,
    service_public_key_path: sb.servicePublicKeyPath,
  };
  await openScreen(page, 'Settings');

  const conn = page.getByRole('form', { name: 'Connection' });
  await conn.getByLabel('Profile').selectOption('sandbox');
  await conn.getByRole('button', { name: 'Save connection' }).click();
  await expect(conn.getByText('is required for the sandbox profile')).toBeVisible();
  await conn.getByLabel('Base URL').fill(info.base_url);
  await conn.getByRole('button', { name: 'Save connection' }).click();
  // Another profile is another workspace: the screen reloads from it and says so.
  await expect(page.getByRole('status').filter({ hasText: 'Now on the sandbox profile' })).toBeVisible();
  await expect(conn.getByLabel('Base URL')).toHaveValue(info.base_url);
  await expect(page.getByTestId('status-profile')).toHaveText(/sandbox/);
  await expect(page.getByTestId('status-connection')).toHaveText(/Not configured/);

  for (const [label, value] of [
    ['Public key', info.public_key],
    ['Secret key', info.secret_key],
    ['Signing key', info.signing_key],
  ] as const) {
    const row = page.getByRole('form', { name: label });
    await expect(row.getByText('not set')).toBeVisible();
    await row.getByLabel(label).fill(value);
    await row.getByRole('button', { name: 'Set' }).click();
    await expect(row.getByText('set', { exact: true })).toBeVisible();
    await expect(row.getByLabel(label)).toHaveValue('');
  }

  const imp = page.getByRole('form', { name: 'Import service public key' });
  await imp.getByLabel('Or paste the PEM').fill('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----');
  await imp.getByRole('button', { name: 'Import key' }).click();
  await expect(imp.getByText(/is a certificate/)).toBeVisible();
  await imp.getByLabel('PEM file').setInputFiles(info.service_public_key_path);
  await imp.getByRole('button', { name: 'Import key' }).click();
  await expect(page.getByTestId('service-key-info')).toContainText('RSA 4,096 bits (imported)');
  await expect(page.getByTestId('service-key-info')).toContainText(/([0-9a-f]{2}:){31}[0-9a-f]{2}/i);

  await openScreen(page, 'Balances');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('status-connection')).toHaveText(/Online/, { timeout: 30_000 });
  await expect(page.getByRole('region', { name: 'UGX balances' })).toBeVisible();

  // No key value anywhere in the page, nor in renderer storage.
  await openScreen(page, 'Settings');
  const html = await page.content();
  for (const v of [info.secret_key, info.signing_key, info.public_key]) expect(html).not.toContain(v);
  const storage = await page.evaluate(
    () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
  );
  expect(storage).toBe('{}{}');
  await page.screenshot({ path: screenshotPath('settings-sandbox-profile'), fullPage: true });

  const secretRow = page.getByRole('form', { name: 'Secret key' });
  await secretRow.getByRole('button', { name: 'Clear' }).click();
  await expect(secretRow.getByText('not set')).toBeVisible();
  await expect(page.getByTestId('status-connection')).toHaveText(/Not configured/);
  for (const label of ['Public key', 'Signing key']) {
    const row = page.getByRole('form', { name: label });
    await row.getByRole('button', { name: 'Clear' }).click();
    await expect(row.getByText('not set')).toBeVisible();
  }

  // A base URL on another host: the keys saved for this one are forgotten and asked for again, for it.
  const pkRow = page.getByRole('form', { name: 'Public key' });
  await pkRow.getByLabel('Public key').fill(info.public_key);
  await pkRow.getByRole('button', { name: 'Set' }).click();
  await expect(pkRow.getByText('set', { exact: true })).toBeVisible();
  await conn.getByLabel('Base URL').fill('http://127.0.0.1:9');
  await conn.getByRole('button', { name: 'Save connection' }).click();
  const again = page.getByRole('status').filter({ hasText: 'Keys must be entered again for' });
  await expect(again).toContainText('http://127.0.0.1:9');
  await expect(again).toContainText(`saved for ${new URL(info.base_url).origin}`);
  await expect(pkRow.getByText('not set')).toBeVisible();
  await expect(page.getByTestId('status-connection')).toHaveText(/Not configured/);
  await page.screenshot({ path: screenshotPath('settings-keys-new-host'), fullPage: true });
});
