// Issue 4 end to end: the Take payment screen in the Chromium shell against the embedded sandbox. The
// test plays the support agent (the app window) and the customer (the hosted page in the payment window,
// a separate browser context of the shell, reached over CDP). Every test has its own data folder and its
// own TMPDIR, and ends by scanning both for the card numbers and CVVs it typed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { docsScreenshot, openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';
import { expectAccessible } from './support/a11y.js';

let app: RunningApp | undefined;
let tmp: string | undefined;
/** Secrets typed in this test: card numbers (digits) and CVVs, scanned for afterwards. */
let typed: { numbers: string[]; cvvs: string[] } = { numbers: [], cvvs: [] };

test.afterEach(async () => {
  try {
    if (app) {
      // The browser's own temporary profile lives under our TMPDIR while it runs: scan it before it goes.
      const live = scanForCardData([tmp!], typed);
      const code = await app.stop();
      expect(code).toBe(0);
      const after = scanForCardData([app.dataDir, tmp!], typed);
      expect(live, 'card data in temp files while the app ran').toEqual([]);
      expect(after, 'card data in the data folder, logs or temp files').toEqual([]);
    }
  } finally {
    if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    app = undefined;
    tmp = undefined;
    typed = { numbers: [], cvvs: [] };
  }
});

async function start(opts: { keyboard?: boolean } = {}): Promise<RunningApp> {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-tmp-'));
  app = await startApp({ env: { TMPDIR: tmp, TMP: tmp, TEMP: tmp } });
  if (opts.keyboard) {
    // The navigation shortcut, as shown in the navigation; focus lands on the screen's heading.
    await app.page.keyboard.press('Control+Shift+3');
    await expect(app.page.getByRole('heading', { level: 1, name: 'Take payment' })).toBeFocused();
  } else {
    await openScreen(app.page, 'Take payment');
  }
  await expect(app.page.getByTestId('card-limits')).toBeVisible();
  return app;
}

// ---- card data scan -------------------------------------------------------------------------

function walk(dir: string, out: string[] = []): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/**
 * Files that hold a typed card number (as digits, grouped, or UTF-16) or a CVV next to a card-ish key.
 * A bare 3-digit CVV is too short to search for alone in binary files, so it is searched in text-like
 * contexts: as a JSON/query/log value ("cvv":"918", cvv=918) and as a whole token in UTF-8 text files.
 */
export function scanForCardData(dirs: string[], secrets: { numbers: string[]; cvvs: string[] }): string[] {
  const hits: string[] = [];
  for (const dir of dirs) {
    for (const file of walk(dir)) {
      // tsx's compile cache holds the app's own compiled sources (the sandbox's test-card table among
      // them): code, not data anyone typed.
      if (/[\\/]tsx-\d+[\\/]/.test(file)) continue;
      let buf: Buffer;
      try {
        buf = fs.readFileSync(file);
      } catch {
        continue; // a file that vanished (browser cache churn) or is locked
      }
      const latin = buf.toString('latin1');
      for (const n of secrets.numbers) {
        const forms = [n, n.replace(/(\d{4})(?=\d)/g, '$1 '), n.replace(/(\d{4})(?=\d)/g, '$1-')];
        const utf16 = Buffer.from(n, 'utf16le').toString('latin1');
        if (forms.some((f) => latin.includes(f)) || latin.includes(utf16))
          hits.push(`${file}: card number ending ${n.slice(-4)}`);
      }
      for (const c of secrets.cvvs) {
        const ctx = new RegExp(`(cvv|cvc|card_cvv|security.?code)["'\\s:=]{1,6}${c}(?!\\d)`, 'i');
        if (ctx.test(latin)) hits.push(`${file}: CVV in a key/value`);
        // Chromium's own "Local State" (browser-wide settings; no page can write to it) holds counters and
        // ids such as -105: a 3-digit CVV matched one of them as a token by chance once. The card number
        // and the CVV as a key/value are still looked for in it.
        const textual =
          path.basename(file) !== 'Local State' &&
          (/\.(log|txt|json|jsonl|ndjson|csv)$/i.test(file) || !buf.subarray(0, 4096).includes(0));
        // A token on its own (not inside a longer number, word or base64 run such as a PEM key).
        if (textual && new RegExp(`(?<![A-Za-z0-9.+/])${c}(?![A-Za-z0-9.])`).test(buf.toString('utf8')))
          hits.push(`${file}: CVV as a token in a text file`);
      }
    }
  }
  return hits;
}

// ---- driving the app and the hosted page ----------------------------------------------------

interface CardInput {
  number: string;
  cvv: string;
  expMonth?: string;
  expYear?: string;
  first?: string;
  last?: string;
  billing?: { country: string; address: string; city: string; state: string; zip: string };
}

interface PaymentInput {
  amount: string;
  currency?: string;
  description: string;
  customer?: string;
  email?: string;
  card: CardInput;
}

const FUTURE_YEAR = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0');

function remember(card: CardInput) {
  typed.numbers.push(card.number.replace(/\D/g, ''));
  // A CVV the form refuses (e.g. 2 digits) never leaves it, and is too short to search for.
  if (/^\d{3,4}$/.test(card.cvv)) typed.cvvs.push(card.cvv);
}

async function fillCard(scope: ReturnType<Page['locator']> | Page, card: CardInput) {
  remember(card);
  await scope.getByLabel('Card number').fill(card.number);
  await scope.getByLabel('Expiry month').fill(card.expMonth ?? '12');
  await scope.getByLabel('Expiry year').fill(card.expYear ?? FUTURE_YEAR);
  await scope.getByLabel('CVV').fill(card.cvv);
  await scope.getByLabel('Cardholder first name').fill(card.first ?? 'Jane');
  await scope.getByLabel('Cardholder last name').fill(card.last ?? 'Doe');
  if (card.billing) {
    await scope.getByLabel('Billing country').fill(card.billing.country);
    await scope.getByLabel('Billing street address').fill(card.billing.address);
    await scope.getByLabel('Billing city').fill(card.billing.city);
    await scope.getByLabel('Billing state').fill(card.billing.state);
    await scope.getByLabel('Billing zip or postal code').fill(card.billing.zip);
  }
}

async function fillPayment(page: Page, p: PaymentInput) {
  const form = page.getByRole('form', { name: 'Take payment' });
  // The sandbox's merchant holds four currencies; the form starts on the first card option (KES).
  await form.getByLabel('Currency').selectOption(p.currency ?? 'UGX');
  await form.getByLabel('Amount').fill(p.amount);
  await form.getByLabel('Description').fill(p.description);
  if (p.customer) await form.getByLabel('Customer name').fill(p.customer);
  if (p.email) await form.getByLabel('Customer e-mail').fill(p.email);
  await fillCard(form, p.card);
}

async function charge(page: Page) {
  await page
    .getByRole('form', { name: 'Take payment' })
    .getByRole('button', { name: /^Charge/ })
    .click();
}

/** The hosted page in the shell's payment window (another browser context of the same Chromium). */
async function paymentWindow(a: RunningApp): Promise<Page> {
  const prefix = `${a.ready.sandbox_url}/pay/`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    for (const ctx of a.browser.contexts()) {
      for (const p of ctx.pages()) if (p.url().startsWith(prefix) && !p.isClosed()) return p;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no payment window on ${prefix} appeared`);
}

/** The card typed is in no input of the app window any more (the form was cleared on submit). */
async function noCardOnScreen(page: Page) {
  const values = await page
    .locator('input')
    .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value.replace(/\D/g, '')));
  for (const n of typed.numbers) expect(values).not.toContain(n);
  for (const c of typed.cvvs) expect(values).not.toContain(c);
}

/** A final result is shown AND the charge has answered (the redirect was captured, the window closed). */
async function finalShown(page: Page, word: 'Approved' | 'Declined' | 'Cancelled', timeout?: number) {
  await expect(outcome(page).getByRole('heading', { name: word })).toBeVisible(timeout ? { timeout } : {});
  await expect(outcome(page)).not.toHaveAttribute('data-in-flight', 'true');
}

function outcome(page: Page) {
  return page.getByTestId('payment-outcome');
}

async function referenceShown(page: Page): Promise<string> {
  const text = await outcome(page).innerText();
  const m = /MD-\d{8}-[A-Z0-9]+/.exec(text);
  if (!m) throw new Error(`no reference in: ${text}`);
  return m[0];
}

async function sandbox(a: RunningApp, method: string, p: string, body?: unknown): Promise<unknown> {
  const r = await fetch(`${a.ready.sandbox_url}/__sandbox${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`sandbox ${method} ${p} -> ${r.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

const VISA_OK = '4242 4242 4242 4242';

// ---- the tests ------------------------------------------------------------------------------

test('approve, typed with the keyboard only: waiting while the page is open, then Approved with a printable receipt', async () => {
  const a = await start({ keyboard: true });
  const { page } = a;
  remember({ number: VISA_OK, cvv: '918' });
  await expectAccessible(page, 'Take payment: empty form');
  // Keyboard only: Ctrl+Shift+3 opened Take payment; Tab through the form in order. Currency comes first:
  // the amount's limits and decimals depend on it.
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Currency')).toBeFocused();
  await page.keyboard.type('U'); // a select takes the option its letters begin: UGX
  await expect(page.getByLabel('Currency')).toHaveValue('UGX');
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Amount')).toBeFocused();
  await page.keyboard.type('15000');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Phone order 1042');
  await expect(page.getByTestId('description-counter')).toHaveText('16 of 10–30 characters');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Jane Doe');
  await page.keyboard.press('Tab');
  await page.keyboard.type('jane@example.com');
  // For the README: the payment part filled in, before any card data is on screen.
  await docsScreenshot(page, 'take-payment');
  await page.keyboard.press('Tab'); // charge customer: leave off
  await page.keyboard.press('Tab'); // allow final status change: on by default
  await expect(page.getByLabel('Allow the final status to change later')).toBeChecked();
  await page.keyboard.press('Tab');
  await page.keyboard.type('4242424242424242');
  await expect(page.getByLabel('Card number')).toHaveValue(VISA_OK);
  await expect(page.getByText('Brand: Visa')).toBeVisible();
  await page.keyboard.press('Tab');
  await page.keyboard.type('12');
  await page.keyboard.press('Tab');
  await page.keyboard.type(FUTURE_YEAR);
  await page.keyboard.press('Tab');
  await page.keyboard.type('918');
  await page.keyboard.press('Tab'); // PIN: none
  await page.keyboard.press('Tab');
  await page.keyboard.type('Jane');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Doe');
  // The amount on the button is grouped like every other amount.
  await expect(page.getByRole('button', { name: 'Charge UGX 15,000' })).toBeVisible();
  await page.screenshot({ path: screenshotPath('take-payment-filled') });
  await expectAccessible(page, 'Take payment: filled form');
  await page.keyboard.press('Enter');

  // The form is gone: focus moved to the result's heading, not the page body.
  await expect(outcome(page).getByRole('heading', { name: "Waiting for the customer's payment" })).toBeFocused();
  await expectAccessible(page, 'Take payment: waiting');
  await noCardOnScreen(page);
  // Nothing of the card in the renderer's storage either.
  const stored = await page.evaluate(() =>
    JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)]),
  );
  expect(stored).not.toContain('4242');
  expect(stored).not.toContain('918');
  await page.screenshot({ path: screenshotPath('take-payment-waiting') });

  const pay = await paymentWindow(a);
  await expect(pay.getByText('•••• 4242')).toBeVisible();
  await pay.screenshot({ path: screenshotPath('hosted-page') });
  await pay.getByRole('button', { name: /^Pay / }).click();

  await finalShown(page, 'Approved');
  const receipt = page.getByRole('region', { name: 'Receipt' });
  await expect(receipt).toContainText('UGX 15,000');
  await expect(receipt).toContainText('Visa •••• 4242');
  await expect(receipt).toContainText('Jane Doe');
  const ref = await referenceShown(page);
  await expect(receipt).toContainText(ref);
  await expect(page.getByRole('button', { name: 'Print receipt' })).toBeVisible();
  await page.screenshot({ path: screenshotPath('take-payment-approved') });
  await expectAccessible(page, 'Take payment: approved with receipt');
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await expect(receipt).toBeVisible();
  await page.screenshot({ path: screenshotPath('take-payment-receipt-print') });
  await page.emulateMedia({ media: 'screen' });

  // The sandbox agrees, and the callback lands too: Collections shows both sources agreeing.
  expect(((await sandbox(a, 'GET', `/collections/${ref}`)) as { status: string }).status).toBe('COMPLETED');
  await page.keyboard.press('Control+Shift+4');
  await expect(page.getByRole('heading', { level: 1, name: 'Collections' })).toBeFocused();
  const row = page.getByRole('table', { name: 'Collections' }).getByRole('row', { name: new RegExp(ref) });
  await expect(row).toContainText('Approved');
  await expect(row.getByText('Agree: redirect Approved, callback Approved')).toBeVisible({ timeout: 20_000 });
  await expectAccessible(page, 'Collections after a payment');
});

/** Fills the form with a valid payment and charges it; returns the reference once the window is open. */
async function chargeAndOpen(
  a: RunningApp,
  p: Partial<PaymentInput> & { card: CardInput },
): Promise<{ ref: string; pay: Page }> {
  await fillPayment(a.page, { amount: '25000', description: 'Phone order e2e', customer: 'Sam Okello', ...p });
  await charge(a.page);
  await expect(outcome(a.page).getByRole('heading', { name: "Waiting for the customer's payment" })).toBeVisible();
  const ref = await referenceShown(a.page);
  await noCardOnScreen(a.page);
  return { ref, pay: await paymentWindow(a) };
}

async function newPayment(page: Page) {
  await page.getByRole('button', { name: 'New payment' }).click();
  await expect(page.getByRole('form', { name: 'Take payment' })).toBeVisible();
}

async function collectionsRow(page: Page, ref: string) {
  await openScreen(page, 'Collections');
  return page.getByRole('table', { name: 'Collections' }).getByRole('row', { name: new RegExp(ref) });
}

async function delivered(a: RunningApp, ref: string, n: number) {
  await expect
    .poll(
      async () =>
        ((await sandbox(a, 'GET', '/callbacks/log')) as { merchant_reference: string; status: string }[]).filter(
          (e) => e.merchant_reference === ref && e.status === 'delivered',
        ).length,
      {
        timeout: 20_000,
      },
    )
    .toBeGreaterThanOrEqual(n);
}

test('decline: the hosted page declines, the agent sees Declined with the reason and a receipt', async () => {
  const a = await start();
  const { ref, pay } = await chargeAndOpen(a, { card: { number: '4000 0000 0000 0002', cvv: '731' } });
  await pay.getByRole('button', { name: /^Pay / }).click();
  await finalShown(a.page, 'Declined');
  await expect(outcome(a.page)).toContainText('Card declined', { timeout: 20_000 }); // the callback's own words
  await expect(a.page.getByRole('region', { name: 'Receipt' })).toContainText(ref);
  await a.page.screenshot({ path: screenshotPath('take-payment-declined') });
  await expectAccessible(a.page, 'take-payment-declined');
});

test('one-time-code challenge: the customer types the code on the hosted page, then Approved', async () => {
  const a = await start();
  const { pay } = await chargeAndOpen(a, { card: { number: '4000 0000 0000 3220', cvv: '642' } });
  await pay.getByRole('button', { name: /^Pay / }).click();
  await pay.getByLabel('One-time code').fill('123456');
  await pay.screenshot({ path: screenshotPath('hosted-page-challenge') });
  await pay.getByRole('button', { name: 'Verify' }).click();
  await finalShown(a.page, 'Approved');
});

test('cancel on the hosted page: Cancelled', async () => {
  const a = await start();
  const { ref, pay } = await chargeAndOpen(a, { card: { number: VISA_OK, cvv: '583' } });
  await pay.getByRole('button', { name: 'Cancel payment' }).click();
  await finalShown(a.page, 'Cancelled');
  expect(((await sandbox(a, 'GET', `/collections/${ref}`)) as { status: string }).status).toBe('CANCELLED');
});

test('window closed early: Awaiting outcome, still pending, until the callback resolves it by itself', async () => {
  const a = await start();
  const { ref, pay } = await chargeAndOpen(a, { card: { number: VISA_OK, cvv: '468' } });
  await pay.close();
  await expect(outcome(a.page).getByRole('heading', { name: 'Awaiting outcome' })).toBeVisible();
  await expect(outcome(a.page)).toContainText('Pending');
  await a.page.screenshot({ path: screenshotPath('take-payment-awaiting') });
  await expectAccessible(a.page, 'take-payment-awaiting');
  expect(((await sandbox(a, 'GET', `/collections/${ref}`)) as { status: string }).status).toBe('PENDING');

  // The customer finished elsewhere: only the callback tells us; the screen updates without a click.
  await sandbox(a, 'POST', `/collections/${ref}/complete`, { outcome: 'approve' });
  await finalShown(a.page, 'Approved', 20_000);
  await expect(a.page.getByRole('region', { name: 'Receipt' })).toContainText('Visa •••• 4242');
});

test('callback before redirect: the callback shows the result while the page is open, the redirect agrees', async () => {
  const a = await start();
  const { ref, pay } = await chargeAndOpen(a, { card: { number: VISA_OK, cvv: '357' } });
  const done = (await sandbox(a, 'POST', `/collections/${ref}/complete`, { outcome: 'approve' })) as {
    redirect_url: string;
  };
  await delivered(a, ref, 1);
  // The callback arrived first: the agent already sees Approved while the payment window is still open.
  await expect(outcome(a.page).getByRole('heading', { name: 'Approved' })).toBeVisible();
  await expect(outcome(a.page)).toHaveAttribute('data-in-flight', 'true');
  // Now the page redirects (late): it is captured, verified and agrees.
  await pay.goto(done.redirect_url).catch(() => {}); // aborted by design: the redirect never loads
  await expect(outcome(a.page)).not.toHaveAttribute('data-in-flight', 'true');
  await expect(outcome(a.page).getByRole('heading', { name: 'Approved' })).toBeVisible();

  const row = await collectionsRow(a.page, ref);
  await expect(row.getByText('Agree')).toBeVisible();
  await row.click();
  const timeline = a.page.getByRole('list', { name: 'Event timeline' });
  const items = timeline.getByRole('listitem');
  await expect(items.filter({ hasText: 'callback' }).first()).toContainText('Signature verified');
  const texts = await items.allInnerTexts();
  const cb = texts.findIndex((t) => /callback/i.test(t) && /Outcome reported/.test(t));
  const rd = texts.findIndex((t) => /redirect/i.test(t) && /Outcome reported/.test(t));
  expect(cb).toBeGreaterThan(-1);
  expect(rd).toBeGreaterThan(cb);
  await a.page.screenshot({ path: screenshotPath('collection-detail-callback-first') });
  await expectAccessible(a.page, 'collection-detail-callback-first');
});

test('duplicate and out-of-order callbacks: each stored once, both collections agree', async () => {
  const a = await start();
  await sandbox(a, 'POST', '/callbacks/mode', { mode: 'reorder' });
  const first = await chargeAndOpen(a, { card: { number: VISA_OK, cvv: '272' } });
  await first.pay.getByRole('button', { name: /^Pay / }).click();
  await finalShown(a.page, 'Approved');
  await newPayment(a.page);
  const second = await chargeAndOpen(a, { card: { number: '4000 0000 0000 9995', cvv: '819' } });
  await second.pay.getByRole('button', { name: /^Pay / }).click();
  await finalShown(a.page, 'Declined');

  // Held callbacks go out newest first; then the first one is delivered again.
  await sandbox(a, 'POST', '/callbacks/release');
  await delivered(a, first.ref, 1);
  await delivered(a, second.ref, 1);
  const log = (await sandbox(a, 'GET', '/callbacks/log')) as { merchant_reference: string; status: string }[];
  const order = log.filter((e) => e.status === 'delivered').map((e) => e.merchant_reference);
  expect(order.indexOf(second.ref)).toBeLessThan(order.indexOf(first.ref));
  await sandbox(a, 'POST', '/callbacks/mode', { mode: 'duplicate' });
  await sandbox(a, 'POST', '/callbacks/resend', { merchant_reference: first.ref });
  await delivered(a, first.ref, 3);

  await openScreen(a.page, 'Collections');
  const table = a.page.getByRole('table', { name: 'Collections' });
  await expect(table.getByRole('row', { name: new RegExp(first.ref) }).getByText('Agree')).toBeVisible();
  await expect(table.getByRole('row', { name: new RegExp(second.ref) }).getByText('Agree')).toBeVisible();
  await expect(table.getByRole('row', { name: new RegExp(first.ref) })).not.toContainText('Changed after final');
  await table.getByRole('row', { name: new RegExp(first.ref) }).click();
  const items = a.page.getByRole('list', { name: 'Event timeline' }).getByRole('listitem');
  await expect(items.filter({ hasText: 'Raw callback payload' })).toHaveCount(1);
  await a.page.screenshot({ path: screenshotPath('collection-detail-duplicates') });
});

test('final status changed: approved, then the service flips it; shown, flagged, history kept', async () => {
  const a = await start();
  const { ref, pay } = await chargeAndOpen(a, { card: { number: '4000 0000 0000 0259', cvv: '905' } });
  await pay.getByRole('button', { name: /^Pay / }).click();
  await finalShown(a.page, 'Approved');
  await delivered(a, ref, 1);
  await sandbox(a, 'POST', `/collections/${ref}/flip`, { status: 'FAILED' });
  await finalShown(a.page, 'Declined', 20_000);
  await expect(a.page.getByTestId('final-status-changed')).toContainText('was Approved, now Declined');
  await a.page.screenshot({ path: screenshotPath('take-payment-final-changed') });

  const row = await collectionsRow(a.page, ref);
  // A change the service was allowed to make: a warning, not "Disagree" in red.
  await expect(row).toContainText('Changed after final');
  await expect(row).not.toContainText('Disagree');
  await row.click();
  const items = a.page.getByRole('list', { name: 'Event timeline' }).getByRole('listitem');
  await expect(items.filter({ hasText: 'Changed after final' })).toHaveCount(1);
  await expectAccessible(a.page, 'Collection detail: final status changed');
  await docsScreenshot(a.page, 'collections-detail');
  await expect(items.filter({ hasText: 'Outcome reported' }).filter({ hasText: 'Approved' }).first()).toBeVisible();
  await a.page.screenshot({ path: screenshotPath('collection-detail-flip') });
});

test('unknown outcome from a dropped connection: no retry on its own, then sent again with the same reference', async () => {
  const a = await start();
  await sandbox(a, 'POST', '/faults', { route: 'initialize', kind: 'drop_after_commit' });
  await fillPayment(a.page, {
    amount: '30000',
    description: 'Phone order unknown',
    card: { number: VISA_OK, cvv: '646' },
  });
  await charge(a.page);
  await expect(outcome(a.page).getByRole('heading', { name: 'Outcome unknown' })).toBeVisible();
  const ref = await referenceShown(a.page);
  await noCardOnScreen(a.page);
  await a.page.screenshot({ path: screenshotPath('take-payment-unknown') });
  await expectAccessible(a.page, 'take-payment-unknown');
  // The service did create it, and nothing was sent a second time on its own.
  expect(((await sandbox(a, 'GET', '/state')) as { collections: number }).collections).toBe(1);

  const resend = a.page.getByRole('form', { name: 'Send again' });
  await fillCard(resend, { number: VISA_OK, cvv: '646' });
  await resend.getByRole('button', { name: 'Send again with the same reference' }).click();
  const pay = await paymentWindow(a);
  await pay.getByRole('button', { name: /^Pay / }).click();
  await finalShown(a.page, 'Approved');
  expect(await referenceShown(a.page)).toBe(ref);
  expect(((await sandbox(a, 'GET', '/state')) as { collections: number }).collections).toBe(1);
});

test('rejected input: each field names its problem and nothing is sent; a service refusal lands on its field', async () => {
  const a = await start();
  const { page } = a;
  const form = page.getByRole('form', { name: 'Take payment' });
  await fillPayment(page, {
    amount: '99999999',
    description: 'short',
    email: 'not-an-address',
    card: { number: '4242 4242 4242 4241', cvv: '12', expMonth: '01', expYear: '20' },
  });
  await form.getByLabel('Billing country').fill('US');
  await expect(form.getByLabel('Billing street address (required)')).toBeVisible();
  await charge(page);
  await expect(form.getByText('amount must be at most UGX 10,000,000')).toBeVisible();
  await expect(form.getByText('description must be 10 to 30 characters (now 5)')).toBeVisible();
  await expect(form.getByText('customer e-mail is not a valid address')).toBeVisible();
  await expect(form.getByText(/card number is not valid \(check digit\)/)).toBeVisible();
  await expect(form.getByText('CVV must be 3 digits for Visa')).toBeVisible();
  await expect(form.getByText(/expiry: the card has expired/)).toBeVisible();
  await expect(form.getByText('billing city is required for cards billed in US')).toBeVisible();
  await expect(form.getByLabel('Description')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator(':focus')).toHaveAttribute('name', 'amount'); // focus on the first field to fix
  await page.screenshot({ path: screenshotPath('take-payment-rejected-local'), fullPage: true });
  await expectAccessible(page, 'take-payment-rejected-local');
  expect(((await sandbox(a, 'GET', '/state')) as { collections: number }).collections).toBe(0);

  // Valid as far as the form can tell, but this card is US-issued and no billing address was given:
  // the service refuses, and its message lands on the billing field.
  await page.reload();
  await expect(page.getByTestId('card-limits')).toBeVisible();
  await fillPayment(page, {
    amount: '20000',
    description: 'Phone order US card',
    card: { number: '5555 5555 5555 4444', cvv: '404' },
  });
  await charge(page);
  await expect(page.getByRole('alert').filter({ hasText: 'The service refused the payment' })).toContainText(
    'billing_address',
  );
  await expect(form.getByLabel(/Billing street address/)).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByLabel('Card number')).toHaveValue('');
  await page.screenshot({ path: screenshotPath('take-payment-rejected-service'), fullPage: true });
  await expectAccessible(page, 'take-payment-rejected-service');
  expect(((await sandbox(a, 'GET', '/state')) as { collections: number }).collections).toBe(0);
  const row = await collectionsRow(page, 'MD-');
  await expect(row.first()).toContainText('Rejected');
});

test('the same card and amount again within minutes asks first; "Do not charge" sends nothing', async () => {
  const a = await start();
  const card = { number: VISA_OK, cvv: '371' };
  const first = await chargeAndOpen(a, { amount: '12000', card });
  await first.pay.getByRole('button', { name: /^Pay / }).click();
  await finalShown(a.page, 'Approved');
  await newPayment(a.page);

  await fillPayment(a.page, { amount: '12000', description: 'Phone order again', card });
  await charge(a.page);
  const dialog = a.page.getByRole('dialog', { name: 'Charge this card again?' });
  await expect(dialog).toContainText('UGX 12,000');
  await expect(dialog.getByRole('button', { name: 'Do not charge' })).toBeFocused();
  await noCardOnScreen(a.page);
  await a.page.screenshot({ path: screenshotPath('take-payment-repeat') });
  await expectAccessible(a.page, 'take-payment-repeat');
  await a.page.keyboard.press('Escape'); // = Do not charge
  await expect(dialog).toBeHidden();
  await expect(a.page.getByText('Not charged again.')).toBeVisible();
  expect(((await sandbox(a, 'GET', '/state')) as { collections: number }).collections).toBe(1);

  // Asked again and confirmed: it goes through as a new payment.
  await fillPayment(a.page, { amount: '12000', description: 'Phone order again', card });
  await charge(a.page);
  await dialog.getByRole('button', { name: 'Charge again' }).click();
  const pay = await paymentWindow(a);
  await pay.getByRole('button', { name: 'Cancel payment' }).click();
  await finalShown(a.page, 'Cancelled');
  expect(((await sandbox(a, 'GET', '/state')) as { collections: number }).collections).toBe(2);
});
