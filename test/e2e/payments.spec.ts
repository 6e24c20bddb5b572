// Issue 4 end to end: the Take payment screen in the Chromium shell against the embedded sandbox. The
// test plays the support agent (the app window) and the customer (the hosted page in the payment window,
// a separate browser context of the shell, reached over CDP). Every test has its own data folder and its
// own TMPDIR, and ends by scanning both for the card numbers and CVVs it typed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';

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

async function start(): Promise<RunningApp> {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-tmp-'));
  app = await startApp({ env: { TMPDIR: tmp, TMP: tmp, TEMP: tmp } });
  await openScreen(app.page, 'Take payment');
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
        if (forms.some((f) => latin.includes(f)) || latin.includes(utf16)) hits.push(`${file}: card number ending ${n.slice(-4)}`);
      }
      for (const c of secrets.cvvs) {
        const ctx = new RegExp(`(cvv|cvc|card_cvv|security.?code)["'\\s:=]{1,6}${c}(?!\\d)`, 'i');
        if (ctx.test(latin)) hits.push(`${file}: CVV in a key/value`);
        const textual = /\.(log|txt|json|jsonl|ndjson|csv)$/i.test(file) || !buf.subarray(0, 4096).includes(0);
        if (textual && new RegExp(`(?<![\\d.])${c}(?![\\d.])`).test(buf.toString('utf8'))) hits.push(`${file}: CVV ${c.length} digits as a token in a text file`);
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
  typed.cvvs.push(card.cvv);
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
  if (p.currency) await form.getByLabel('Currency').selectOption(p.currency);
  await form.getByLabel('Amount').fill(p.amount);
  await form.getByLabel('Description').fill(p.description);
  if (p.customer) await form.getByLabel('Customer name').fill(p.customer);
  if (p.email) await form.getByLabel('Customer e-mail').fill(p.email);
  await fillCard(form, p.card);
}

async function charge(page: Page) {
  await page.getByRole('form', { name: 'Take payment' }).getByRole('button', { name: /^Charge/ }).click();
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
  const a = await start();
  const { page } = a;
  remember({ number: VISA_OK, cvv: '918' });
  // Keyboard only: Alt+3 is Take payment; Tab through the form in order.
  await page.getByLabel('Amount').focus();
  await page.keyboard.type('15000');
  await page.keyboard.press('Tab'); // currency (UGX, the first card option)
  await page.keyboard.press('Tab');
  await page.keyboard.type('Phone order 1042');
  await expect(page.getByTestId('description-counter')).toHaveText('16 of 10–30 characters');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Jane Doe');
  await page.keyboard.press('Tab');
  await page.keyboard.type('jane@example.com');
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
  await page.screenshot({ path: screenshotPath('take-payment-filled') });
  await page.keyboard.press('Enter');

  await expect(page.getByTestId('payment-waiting')).toContainText("Waiting for the customer's payment");
  // The card fields were cleared the moment the form was sent.
  await expect(page.getByLabel('Card number')).toHaveValue('');
  await expect(page.getByLabel('CVV')).toHaveValue('');
  await page.screenshot({ path: screenshotPath('take-payment-waiting') });

  const pay = await paymentWindow(a);
  await expect(pay.getByText('•••• 4242')).toBeVisible();
  await pay.screenshot({ path: screenshotPath('hosted-page') });
  await pay.getByRole('button', { name: /^Pay / }).click();

  await expect(outcome(page).getByRole('heading', { name: 'Approved' })).toBeVisible();
  const receipt = page.getByRole('region', { name: 'Receipt' });
  await expect(receipt).toContainText('UGX 15,000');
  await expect(receipt).toContainText('Visa •••• 4242');
  await expect(receipt).toContainText('Jane Doe');
  const ref = await referenceShown(page);
  await expect(receipt).toContainText(ref);
  await expect(page.getByRole('button', { name: 'Print receipt' })).toBeVisible();
  await page.screenshot({ path: screenshotPath('take-payment-approved') });
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await expect(receipt).toBeVisible();
  await page.screenshot({ path: screenshotPath('take-payment-receipt-print') });
  await page.emulateMedia({ media: 'screen' });

  // The sandbox agrees, and the callback lands too: Collections shows both sources agreeing.
  expect(((await sandbox(a, 'GET', `/collections/${ref}`)) as { status: string }).status).toBe('COMPLETED');
  await openScreen(page, 'Collections');
  const row = page.getByRole('table', { name: 'Collections' }).getByRole('row', { name: new RegExp(ref) });
  await expect(row).toContainText('Approved');
  await expect(row.getByText('Agree')).toBeVisible({ timeout: 20_000 });
});
