// Issue 39, as a person sees it: what the service answers is shown exactly as it said it, or not taken,
// with the service's words. The sandbox answers what each test writes (its `answer` fault: a test control).
import fs from 'node:fs';
import { test, expect } from '@playwright/test';
import { openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';
import { expectAccessible } from './support/a11y.js';

let app: RunningApp | undefined;

test.afterEach(async () => {
  await app?.stop();
  if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
  app = undefined;
});

/** A balance answer with one USD collection wallet; `amount` goes on the wire as written (a JSON number). */
function usdBalanceAnswer(amount: string, envelope = '"code":200,"status":"success","message":"ok"'): string {
  return (
    `{${envelope},"data":{"merchant_balances":[{"available_balance":${amount},"actual_balance":${amount},` +
    `"uncleared_balance":0,"reserve_balance":0,"currency":"USD","wallet_type":"MERCHANT_COLLECTION"}]}}`
  );
}

test('a balance too precise for a double is shown to the cent the service sent', async () => {
  app = await startApp();
  const { page } = app;
  const usd = page.getByRole('region', { name: 'USD balances' });
  await expect(usd).toBeVisible();
  await app.sandbox!.fault({
    route: 'balances',
    kind: 'answer',
    times: 0,
    body: usdBalanceAnswer('74912820901925.32'),
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  const available = page.getByRole('table', { name: 'USD wallets' }).getByRole('row', { name: /Available/ });
  // Before issue 39 it read 74,912,820,901,925.31: JSON.parse had rounded it to a double.
  await expect(available).toContainText('74,912,820,901,925.32', { timeout: 30_000 });
  await expect(available).not.toContainText('925.31');
  await page.screenshot({ path: screenshotPath('balances-exact') });
});

test('a balance answer that says it was declined is not taken: stale, with what the service said', async () => {
  app = await startApp();
  const { page } = app;
  const ugx = page.getByRole('region', { name: 'UGX balances' });
  await expect(ugx).toBeVisible();
  const before = await page.getByRole('table', { name: 'UGX wallets' }).innerText();
  await app.sandbox!.fault({
    route: 'balances',
    kind: 'answer',
    times: 0,
    body: usdBalanceAnswer('1', '"code":200,"status":"declined","message":"Account suspended"'),
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  const notice = page.getByTestId('stale-notice');
  await expect(notice).toContainText(
    'The last update failed: The service answered the balance inquiry with status "declined": Account suspended.',
    { timeout: 30_000 },
  );
  await expect(ugx.getByText('stale')).toBeVisible();
  // Nothing of the refused answer was stored: the cached wallets are as they were, and USD's is still the
  // sandbox's 3,250.75, not the answer's 1.00.
  expect(await page.getByRole('table', { name: 'UGX wallets' }).innerText()).toBe(before);
  await expect(page.getByRole('table', { name: 'USD wallets' }).getByRole('row', { name: /Available/ })).toContainText(
    '3,250.75',
  );
  await page.screenshot({ path: screenshotPath('balances-declined') });
  await expectAccessible(page, 'Balances: a declined answer');
});

test('payment options are asked per currency; the screen names the currency whose options could not be read', async () => {
  app = await startApp();
  const { page } = app;
  // A service that refuses the options request without currency and transaction_type (the contract leaves
  // it open), and that cannot answer for KES.
  await app.sandbox!.config({ strict_options: true });
  await openScreen(page, 'Payment options');
  const table = page.getByRole('table', { name: 'Payment options' });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(table.getByRole('row', { name: /Visa \/ Mastercard \(KES\)/ })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText(/The last update failed/)).toHaveCount(0);

  await app.sandbox!.fault({ route: 'providers', kind: '503', currency: 'KES', times: 0 });
  await page.getByRole('button', { name: 'Refresh' }).click();
  const stale = page.getByText(/The last update failed/);
  await expect(stale).toContainText('the payment options for KES could not be read: The service is unavailable', {
    timeout: 60_000,
  });
  await expect(stale).toContainText('(TZS, UGX and USD were read)');
  // KES's options are still the ones read before; the others are there too.
  await expect(table.getByRole('row', { name: /Visa \/ Mastercard \(KES\)/ })).toBeVisible();
  await expect(table.getByRole('row', { name: /Visa \/ Mastercard \(UGX\)/ })).toBeVisible();
  const status = page.getByTestId('status-connection');
  await expect(status).toHaveText(/Service error/);
  await expect(status).toHaveAttribute('title', /the payment options for KES could not be read/);
  await page.screenshot({ path: screenshotPath('payment-options-one-currency-unread') });
  await expectAccessible(page, 'Payment options: one currency not read');
});
