import fs from 'node:fs';
import { test, expect } from '@playwright/test';
import { docsScreenshot, openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';
import { expectAccessible } from './support/a11y.js';

let app: RunningApp | undefined;

test.afterEach(async () => {
  await app?.stop();
  if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
  app = undefined;
});

test('balances appear on the embedded profile with nothing configured', async () => {
  app = await startApp();
  const { page } = app;
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeVisible();
  // Every sandbox wallet currency, with the four amounts; UGX has no decimals, KES two.
  for (const c of ['UGX', 'KES', 'TZS', 'USD']) {
    await expect(page.getByRole('region', { name: `${c} balances` })).toBeVisible();
  }
  const ugx = page.getByRole('table', { name: 'UGX wallets' });
  await expect(ugx.getByRole('columnheader', { name: 'Collection wallet' })).toBeVisible();
  await expect(ugx.getByRole('columnheader', { name: 'Payout wallet' })).toBeVisible();
  for (const row of ['Available', 'Uncleared', 'Reserve', 'Actual']) {
    await expect(ugx.getByRole('row', { name: new RegExp(row) })).toBeVisible();
  }
  await expect(ugx.getByRole('row', { name: /Actual/ })).toContainText(/\d{1,3}(,\d{3})+(?!\.)/);
  await expect(page.getByRole('table', { name: 'KES wallets' }).getByRole('row', { name: /Available/ })).toContainText(
    /\d\.\d{2}/,
  );
  await expect(page.getByText(/As of (just now|\d+ s ago)/)).toBeVisible();
  await expect(page.getByTestId('status-profile')).toHaveText(/embedded/);
  await expect(page.getByTestId('status-connection')).toHaveText(/Online/);
  await expect(page.getByRole('figure', { name: /UGX|KES|TZS|USD/ })).toBeVisible();
  // A first start: the chart says its history starts now (the week fills in from there).
  await expect(page.getByTestId('history-starts').first()).toContainText('History starts');
  // The shortcuts shown are ones neither shell takes for itself.
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Collections' })).toContainText(
    'Ctrl+Shift+4',
  );
  await page.screenshot({ path: screenshotPath('balances-embedded') });
  await expectAccessible(page, 'Balances');
  await docsScreenshot(page, 'balances');

  await openScreen(page, 'Payment options');
  const table = page.getByRole('table', { name: 'Payment options' });
  await expect(table.getByRole('row', { name: /Card/ }).first()).toBeVisible();
  await expectAccessible(page, 'Payment options');
  // The Method filter names methods as the table does.
  await expect(page.getByLabel('Method').getByRole('option', { name: 'Card', exact: true })).toHaveCount(1);
  await expect(page.getByLabel('Method').getByRole('option', { name: 'CARD', exact: true })).toHaveCount(0);
  await page.getByLabel('Currency').selectOption('UGX');
  await page.getByLabel('Method').selectOption({ label: 'Card' });
  await expect(table.getByRole('row')).toHaveCount(2); // header + the UGX card option
  await expect(table).toContainText('Collected today');
  const cells = table.getByRole('row').nth(1).getByRole('cell');
  // Daily maximum (UGX has no decimals) and collected today; the code after each amount is visually
  // hidden (the column header says it) but read out by screen readers.
  await expect(cells.nth(6)).toHaveText('50,000,000 UGX');
  await expect(cells.nth(7)).toHaveText('0 UGX (0%)');
  await page.screenshot({ path: screenshotPath('payment-options-filtered') });

  // Every screen of a first start (empty lists, empty queue) passes the accessibility check.
  for (const name of ['Take payment', 'Collections', 'Reconciliation', 'Reports', 'Settings']) {
    await openScreen(page, name);
    await expectAccessible(page, `${name} (first start)`);
  }
});

test('a setting survives a restart', async () => {
  app = await startApp();
  await openScreen(app.page, 'Settings');
  const polling = app.page.getByRole('form', { name: 'Polling' });
  await polling.getByLabel('Balances every (seconds)').fill('45');
  await polling.getByRole('button', { name: 'Save polling' }).click();
  await expect(polling.getByRole('status')).toHaveText('Saved');
  const operator = app.page.getByRole('form', { name: 'Payments' });
  await operator.getByLabel('Operator name').fill('Amina at the front desk');
  await operator.getByRole('button', { name: 'Save payments' }).click();
  await expect(operator.getByRole('status')).toHaveText('Saved');

  const dataDir = app.dataDir;
  expect(await app.stop()).toBe(0);
  app = await startApp({ dataDir });
  // Keyboard navigation: Ctrl+Shift+7 is Settings, and focus lands on the screen's heading.
  await app.page.getByRole('heading', { level: 1, name: 'Balances' }).waitFor();
  await app.page.keyboard.press('Control+Shift+7');
  await expect(app.page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();
  await expect(app.page.getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
  await expect(app.page.getByRole('form', { name: 'Polling' }).getByLabel('Balances every (seconds)')).toHaveValue(
    '45',
  );
  await expect(app.page.getByRole('form', { name: 'Payments' }).getByLabel('Operator name')).toHaveValue(
    'Amina at the front desk',
  );
  // Main recorded the change of who is working (the renderer cannot change it unrecorded).
  await expect(app.page.getByRole('list', { name: 'Operator name changes' })).toContainText(
    /Operator name changed from .+ to Amina at the front desk at /,
  );
  await app.page.screenshot({ path: screenshotPath('settings-after-restart') });
  await expectAccessible(app.page, 'Settings');
});

test('a bad setting is refused with a message naming the field, and nothing is saved', async () => {
  app = await startApp();
  await openScreen(app.page, 'Settings');
  const polling = app.page.getByRole('form', { name: 'Polling' });
  await polling.getByLabel('Balances every (seconds)').fill('1');
  await polling.getByRole('button', { name: 'Save polling' }).click();
  await expect(polling.getByText('must be at least 5000 ms')).toBeVisible();
  await expect(polling.getByLabel('Balances every (seconds)')).toHaveAttribute('aria-invalid', 'true');
  await expectAccessible(app.page, 'Settings: a field refused');
  await app.page.reload();
  await expect(app.page.getByRole('form', { name: 'Polling' }).getByLabel('Balances every (seconds)')).toHaveValue(
    '60',
  );
});

test('the service going down shows cached balances as stale with a readable error; recovery clears it', async () => {
  app = await startApp();
  const { page } = app;
  const ugx = page.getByRole('region', { name: 'UGX balances' });
  await expect(ugx).toBeVisible();
  const before = await page.getByRole('table', { name: 'UGX wallets' }).innerText();

  await app.sandbox!.fault({ route: 'balances', kind: '503', times: 0 });
  await page.getByRole('button', { name: 'Refresh' }).click();
  const notice = page.getByTestId('stale-notice');
  await expect(notice).toBeVisible({ timeout: 30_000 });
  await expect(notice).toContainText(/The last update failed: .*(unavailable|503)/i);
  await expect(ugx.getByText('stale')).toBeVisible();
  // The cached numbers are still there, unchanged.
  expect(await page.getByRole('table', { name: 'UGX wallets' }).innerText()).toBe(before);
  await expect(page.getByTestId('status-connection')).toHaveText(/Service error|Offline/);
  await page.screenshot({ path: screenshotPath('balances-stale') });
  await expectAccessible(page, 'Balances: stale');

  await app.sandbox!.clearFaults();
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(notice).toBeHidden({ timeout: 30_000 });
  await expect(ugx.getByText('stale')).toBeHidden();
  await expect(page.getByTestId('status-connection')).toHaveText(/Online/);
  await page.screenshot({ path: screenshotPath('balances-recovered') });
});

test('an alert names the wallet whose actual balance is not the sum of the others', async () => {
  app = await startApp();
  const { page } = app;
  await expect(page.getByRole('region', { name: 'KES balances' })).toBeVisible();
  // Keep the poller from overwriting, then store an answer whose numbers do not add up, as if the service sent it.
  await app.sandbox!.fault({ route: 'balances', kind: '503', times: 0 });
  const { openDatabase } = await import('../../main/store/sqlite/connection.js');
  const { recordBalanceRun } = await import('../../main/store/sqlite/balances.js');
  const { dataPaths } = await import('../../main/settings/paths.js');
  const db = openDatabase(dataPaths(app.dataDir).db);
  const now = Date.now();
  recordBalanceRun(db, {
    startedAt: now,
    finishedAt: now,
    result: {
      ok: true,
      value: [
        {
          currency: 'KES',
          walletType: 'MERCHANT_PAYOUT',
          availableMinor: 10_000,
          unclearedMinor: 2_000,
          reserveMinor: 0,
          actualMinor: 15_000,
        },
      ],
    },
  });
  db.close();
  await page.reload();
  const kes = page.getByRole('region', { name: 'KES balances' });
  const alert = kes.getByRole('alert');
  await expect(alert).toContainText('Payout wallet');
  await expect(alert).toContainText('150.00');
  await expect(alert).toContainText('120.00');
  await expect(alert).toContainText('a difference of 30.00');
  await expect(page.getByRole('region', { name: 'UGX balances' }).getByRole('alert')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('balances-sum-alert') });
  await expectAccessible(page, 'Balances: sum alert');
});
