// The hosted page in a real Chromium: accessible names, the challenge code, and the redirect.
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialize, sandbox } from './helpers.js';

const executablePath = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
].find((p): p is string => !!p && fs.existsSync(p));
if (!executablePath)
  throw new Error('no Chromium found: install chromium (scripts/ensure-system-deps.sh) or set CHROMIUM_PATH');

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath, headless: true });
});
afterAll(async () => {
  await browser?.close();
});

/** Opens the payment page with the merchant's redirect URL captured instead of loaded. */
async function open(url: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  let redirected: URL | undefined;
  await page.route('https://merchant.example/**', (route) => {
    redirected = new URL(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>back at the merchant</p>' });
  });
  await page.goto(url);
  return { page, context, redirect: () => redirected };
}

describe('hosted payment page in Chromium', () => {
  it('Pay redirects to redirect_url with the result', async () => {
    const sb = await sandbox();
    const c = await initialize(sb, { amount: 25000 });
    const { page, context, redirect } = await open(c.payment_url);
    await expect.poll(() => page.getByRole('button', { name: 'Pay UGX 25,000' }).count()).toBe(1);
    expect(await page.getByText('•••• 4242').count()).toBe(1);
    await page.getByRole('button', { name: 'Pay UGX 25,000' }).click();
    await page.getByText('back at the merchant').waitFor();
    expect(redirect()?.searchParams.get('transaction_status')).toBe('COMPLETED');
    expect(redirect()?.searchParams.get('merchant_reference')).toBe(c.merchant_reference);
    await context.close();
  });

  it('the challenge card: fill "One-time code", press Verify', async () => {
    const sb = await sandbox();
    const c = await initialize(sb, {}, { card_no: '4000000000003220' });
    const { page, context, redirect } = await open(c.payment_url);
    await page.getByLabel('One-time code').fill('123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('back at the merchant').waitFor();
    expect(redirect()?.searchParams.get('transaction_status')).toBe('COMPLETED');
    await context.close();
  });

  it('Cancel payment, then reopening the page shows it finished', async () => {
    const sb = await sandbox();
    const c = await initialize(sb);
    const { page, context, redirect } = await open(c.payment_url);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByText('back at the merchant').waitFor();
    expect(redirect()?.searchParams.get('event')).toBe('transaction.cancelled');
    await page.goto(c.payment_url);
    expect(await page.getByRole('heading', { name: 'Payment cancelled' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /^Pay/ }).count()).toBe(0);
    await context.close();
  });
});
