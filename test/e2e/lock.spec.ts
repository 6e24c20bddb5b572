// The idle lock end to end in the Chromium shell: with a 3-second idle time (idleLockMinutes takes
// seconds only under NODE_ENV=test) main locks by itself, refuses every IPC call but unlocking, and the
// window shows only the lock screen; first use chooses the passphrase; Lock now and Ctrl+Shift+L lock at
// once; a wrong passphrase says so; everything works from the keyboard.
import fs from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { startApp, type RunningApp } from './support/app.js';
import { expectAccessible } from './support/a11y.js';

let app: RunningApp | undefined;

test.afterEach(async () => {
  if (app) {
    expect(await app.stop()).toBe(0);
    // The passphrase is in no file the app wrote (data folder, logs).
    for (const f of listFiles(app.dataDir)) expect(fs.readFileSync(f).includes('lock e2e passphrase'), f).toBe(false);
    fs.rmSync(app.dataDir, { recursive: true, force: true });
  }
  app = undefined;
});

function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => `${e.parentPath}/${e.name}`);
}

/** A call through the app's own bridge, as the renderer makes it: the result's kind, or 'ok'. */
async function call(page: Page, channel: string, request: unknown = {}): Promise<string> {
  return await page.evaluate(
    async ([c, r]) => {
      const res = await (
        window as unknown as {
          desk: { invoke(c: string, r: unknown): Promise<{ ok: boolean; error?: { kind: string } }> };
        }
      ).desk.invoke(c as string, r);
      return res.ok ? 'ok' : res.error!.kind;
    },
    [channel, request] as const,
  );
}

/** The hosted page in the shell's payment window (another browser context of the same Chromium). */
async function paymentWindow(a: RunningApp): Promise<Page> {
  const prefix = `${a.ready.sandbox_url}/pay/`;
  const find = () =>
    a.browser
      .contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url().startsWith(prefix) && !p.isClosed());
  await expect.poll(() => find() !== undefined, { timeout: 20_000 }).toBe(true);
  return find()!;
}

const LOCKED = { name: 'Merchant Desk is locked', level: 1 } as const;

test('locks after the idle time, refuses every call but unlocking, and unlocks with the passphrase', async () => {
  app = await startApp({
    env: { NODE_ENV: 'test', MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-lock-${process.pid}-${Date.now()}` },
  });
  const { page } = app;
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeVisible();
  expect(await call(page, 'settings.update', { idleLockMinutes: 16 })).toBe('validation');
  expect(await call(page, 'settings.update', { idleLockMinutes: 0.05 })).toBe('ok'); // 3 s

  // No input: main locks by itself and the window shows only the lock screen.
  await expect(page.getByRole('heading', LOCKED)).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeHidden();
  for (const channel of [
    'balances.latest',
    'settings.get',
    'app.info',
    'collections.list',
    'reports.target',
    'lock.lockNow',
    'lock.activity',
  ]) {
    expect(await call(page, channel), channel).toBe('locked');
  }
  expect(await call(page, 'lock.status')).toBe('ok');
  await expectAccessible(page, 'lock screen, first use');

  // First use: choose the passphrase, keyboard only (focus starts in the field).
  await expect(page.getByLabel('New passphrase')).toBeFocused();
  await page.keyboard.type('lock e2e passphrase');
  await page.keyboard.press('Tab');
  await page.keyboard.type('something else');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toHaveText('The two passphrases are not the same.');
  await page.getByLabel('Repeat passphrase').fill('lock e2e passphrase');
  await page.getByLabel('Repeat passphrase').press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeVisible();

  expect(await call(page, 'settings.update', { idleLockMinutes: 15 })).toBe('ok');

  // The idle time is a setting: more than 15 minutes is refused by main, naming the field.
  await page.keyboard.press('Control+Shift+7');
  const idle = () => page.getByRole('form', { name: 'Idle lock' });
  await expect(idle().getByLabel('Lock after idle (minutes)')).toHaveValue('15');
  await idle().getByLabel('Lock after idle (minutes)').fill('20');
  await idle().getByRole('button', { name: 'Save idle lock' }).click();
  await expect(idle().getByText('must be at most 15 minutes')).toBeVisible();
  await idle().getByLabel('Lock after idle (minutes)').fill('14');
  await idle().getByRole('button', { name: 'Save idle lock' }).click();
  await expect(idle().getByRole('status')).toHaveText('Saved');
  await page.keyboard.press('Control+Shift+1');
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeFocused();
  await page.keyboard.press('Control+Shift+7');
  await expect(idle().getByLabel('Lock after idle (minutes)')).toHaveValue('14');
  await page.keyboard.press('Control+Shift+1');
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeFocused();

  // Lock now from the status bar; a wrong passphrase says so.
  await page.getByRole('contentinfo', { name: 'Status' }).getByRole('button', { name: 'Lock now' }).click();
  await expect(page.getByRole('heading', LOCKED)).toBeVisible();
  expect(await call(page, 'balances.latest')).toBe('locked');
  const field = page.getByLabel('Passphrase', { exact: true });
  await expect(field).toBeFocused();
  await field.fill('not the passphrase');
  await page.getByRole('button', { name: 'Unlock' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong passphrase.');
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expectAccessible(page, 'lock screen, wrong passphrase');
  await field.fill('lock e2e passphrase');
  await field.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeVisible();
  expect(await call(page, 'balances.latest')).toBe('ok');

  // Ctrl+Shift+L locks at once; unlock with the keyboard alone. The field has focus as the lock screen
  // appears, not a moment after: keys typed at once all land in it (a CI run typed the passphrase as the
  // screen showed, its first keys went nowhere, and it was told "Wrong passphrase.").
  await page.evaluate(() => {
    const seen = new MutationObserver(() => {
      if (!document.getElementById('lock-secret')) return;
      (window as unknown as { focusAtLock: string }).focusAtLock = document.activeElement?.id ?? '';
      seen.disconnect();
    });
    seen.observe(document.body, { childList: true, subtree: true });
  });
  await page.keyboard.press('Control+Shift+L');
  await expect(page.getByRole('heading', LOCKED)).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { focusAtLock?: string }).focusAtLock)).toBe('lock-secret');
  await page.keyboard.type('lock e2e passphrase');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeVisible();
  // The screen read again after unlock (its calls were refused while locked): balances are shown.
  await expect(page.getByRole('heading', { level: 1, name: 'Balances' })).toBeFocused();
});

test('a payment in progress when the app locks finishes in main, and its result shows after unlock', async () => {
  app = await startApp({
    env: { NODE_ENV: 'test', MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-lock-${process.pid}-${Date.now()}` },
  });
  const { page } = app;
  expect(await call(page, 'lock.setPassphrase', { passphrase: 'lock e2e passphrase' })).toBe('ok');
  await page.keyboard.press('Control+Shift+3');
  await expect(page.getByRole('heading', { level: 1, name: 'Take payment' })).toBeFocused();
  await expect(page.getByTestId('card-limits')).toBeVisible();
  const form = page.getByRole('form', { name: 'Take payment' });
  await form.getByLabel('Currency').selectOption('UGX');
  await form.getByLabel('Amount').fill('15000');
  await form.getByLabel('Description').fill('Phone order 2042');
  await form.getByLabel('Card number').fill('4242 4242 4242 4242');
  await form.getByLabel('Expiry month').fill('12');
  await form.getByLabel('Expiry year').fill(String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0'));
  await form.getByLabel('CVV').fill('918');
  await form.getByLabel('Cardholder first name').fill('Jane');
  await form.getByLabel('Cardholder last name').fill('Doe');
  await form.getByRole('button', { name: /^Charge/ }).click();
  const outcome = page.getByTestId('payment-outcome');
  await expect(outcome.getByRole('heading', { name: "Waiting for the customer's payment" })).toBeVisible();

  // The support agent steps away (Lock now); the customer pays on the hosted page meanwhile.
  await page.keyboard.press('Control+Shift+L');
  await expect(page.getByRole('heading', LOCKED)).toBeVisible();
  const pay = await paymentWindow(app);
  await pay.getByRole('button', { name: /^Pay / }).click();
  // Main captures the redirect and closes the payment window while the app stays locked.
  await expect.poll(() => pay.isClosed(), { timeout: 20_000 }).toBe(true);
  await expect(page.getByRole('heading', LOCKED)).toBeVisible();
  expect(await call(page, 'collections.list', { limit: 10 })).toBe('locked');

  await page.getByLabel('Passphrase', { exact: true }).fill('lock e2e passphrase');
  await page.getByRole('button', { name: 'Unlock' }).click();
  await expect(outcome.getByRole('heading', { name: 'Approved' })).toBeVisible();
  await expect(outcome).not.toHaveAttribute('data-in-flight', 'true');
  await expect(page.getByRole('region', { name: 'Receipt' })).toContainText('UGX 15,000');
});

test('a card typed but not yet sent is cleared when the app locks; the rest of the form is kept', async () => {
  app = await startApp({
    env: { NODE_ENV: 'test', MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-lock-${process.pid}-${Date.now()}` },
  });
  const { page } = app;
  expect(await call(page, 'lock.setPassphrase', { passphrase: 'lock e2e passphrase' })).toBe('ok');
  await page.keyboard.press('Control+Shift+3');
  await expect(page.getByTestId('card-limits')).toBeVisible();
  const form = page.getByRole('form', { name: 'Take payment' });
  await form.getByLabel('Description').fill('Phone order 2043');
  await form.getByLabel('Card number').fill('4242 4242 4242 4242');
  await form.getByLabel('CVV').fill('918');

  await page.keyboard.press('Control+Shift+L');
  await expect(page.getByRole('heading', LOCKED)).toBeVisible();
  // Behind the lock screen (hidden, still mounted) no input holds the card number or CVV any more.
  const inputValues = () => page.evaluate(() => [...document.querySelectorAll('input')].map((i) => i.value));
  await expect.poll(async () => (await inputValues()).filter((v) => /4242|^918$/.test(v))).toEqual([]);
  expect(await inputValues()).toContain('Phone order 2043');
  expect(await page.content()).not.toContain('4242 4242 4242 4242');

  await page.getByLabel('Passphrase', { exact: true }).fill('lock e2e passphrase');
  await page.getByRole('button', { name: 'Unlock' }).click();
  await expect(page.getByRole('heading', LOCKED)).toHaveCount(0);
  await expect(form.getByLabel('Description')).toHaveValue('Phone order 2043');
  await expect(form.getByLabel('Card number')).toHaveValue('');
});
