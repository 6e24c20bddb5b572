// Issue 28 through the screens: several support desks take payments at the same moment. Every part is
// real: a PostgreSQL server of this spec's own, `team init` and `team operators add` through the CLI, the
// sandbox over HTTP, and two desktops (the Chromium shell app, each on its own data folder, connected
// with `connect --profile team`): A signed in as ann, C as carl, both support.
// - Problem 1: A presses Charge while the service is slow to answer initialize; meanwhile C takes a
//   different payment and C's customer pays. A's screen follows A's own charge only: it never shows C's
//   reference or amount, never says Approved for C's payment, and A's result shows A's data only.
// - Problems 2 and 5: C charges the card A charged, for the same amount, seconds later: C is asked
//   "Charge this card again?" and told who charged it; "Do not charge" leaves the typed card in the form.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { test, expect, type Page } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { startApp, screenshotPath, type RunningApp } from './support/app.js';
import { connectTeamDesk, initTeam, signInAtLockScreen, startTeamServer, type TeamServer } from './support/team.js';

test.describe.configure({ mode: 'serial', timeout: 300_000 });

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const ANN = { login: 'ann', role: 'support', name: 'Ann Support', password: 'ann password 1234' };
const CARL = { login: 'carl', role: 'support', name: 'Carl Support', password: 'carl password 1234' };
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-concurrent-${process.pid}-${Date.now()}` };
const FUTURE_YEAR = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0');
const VISA = '4242 4242 4242 4242';
/** How long the sandbox holds desk A's initialize: C's whole payment fits in it (the client gives up at 20 s). */
const SLOW_INITIALIZE_MS = 15_000;

let dir: string;
let team: TeamServer;
let sb: Sandbox;
let deskA: RunningApp | undefined;
let deskC: RunningApp | undefined;
let dataA = '';

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-concurrent-'));
  [team, sb] = await Promise.all([startTeamServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
  await initTeam({ team, dir, admin: ADMIN, operators: [ANN, CARL] });
  const connect = (login: string) => connectTeamDesk({ dir, sandbox: sb, team, login, env: KEYCHAIN });
  let dataC: string;
  [dataA, dataC] = await Promise.all([connect(ANN.login), connect(CARL.login)]);
  [deskA, deskC] = await Promise.all([
    startApp({ dataDir: dataA, env: KEYCHAIN }),
    startApp({ dataDir: dataC, env: KEYCHAIN }),
  ]);
  await signInAtLockScreen(deskA.page, ANN.login, ANN.password);
  await signInAtLockScreen(deskC.page, CARL.login, CARL.password);
  for (const d of [deskA, deskC]) {
    await d.page.setViewportSize({ width: 1280, height: 900 });
    await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Take payment' }).click();
    await expect(d.page.getByTestId('card-limits')).toBeVisible({ timeout: 30_000 });
  }
});

test.afterAll(async () => {
  const codes = await Promise.all([deskA, deskC].map((d) => d?.stop()));
  await sb?.close();
  await team?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  for (const code of codes) if (code !== undefined) expect(code, 'a desk exit code').toBe(0);
});

async function fillPayment(page: Page, p: { amount: string; description: string; card: string; cvv: string }) {
  const form = page.getByRole('form', { name: 'Take payment' });
  await form.getByLabel('Amount').fill(p.amount);
  await form.getByLabel('Description').fill(p.description);
  await form.getByLabel('Card number').fill(p.card);
  await form.getByLabel('Expiry month').fill('12');
  await form.getByLabel('Expiry year').fill(FUTURE_YEAR);
  await form.getByLabel('CVV').fill(p.cvv);
  await form.getByLabel('Cardholder first name').fill('Jane');
  await form.getByLabel('Cardholder last name').fill('Doe');
}

async function pressCharge(page: Page) {
  await page
    .getByRole('form', { name: 'Take payment' })
    .getByRole('button', { name: /^Charge/ })
    .click();
}

function outcome(page: Page) {
  return page.getByTestId('payment-outcome');
}

async function referenceShown(page: Page): Promise<string> {
  const m = /MD-\d{8}-[A-Z0-9]+/.exec(await outcome(page).innerText());
  if (!m) throw new Error(`no reference in: ${await outcome(page).innerText()}`);
  return m[0];
}

/** The hosted payment page in a desk's payment window, once it is open. */
async function paymentWindow(d: RunningApp): Promise<Page> {
  const prefix = `${sb.baseUrl}/pay/`;
  const find = () =>
    d.browser
      .contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url().startsWith(prefix) && !p.isClosed());
  await expect.poll(() => find() !== undefined, { timeout: 30_000 }).toBe(true);
  return find()!;
}

/** A collection's status in desk A's own SQLite copy (read-only, beside the running app). */
function statusOnA(reference: string): string | null {
  const db = new Database(path.join(dataA, 'profiles', 'team', 'merchant-desk.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    const r = db.prepare('SELECT status FROM collections WHERE merchant_reference = ?').get(reference) as
      { status: string } | undefined;
    return r?.status ?? null;
  } finally {
    db.close();
  }
}

/** Records every text the Take payment screen shows from now on, so the test can say what was NEVER shown. */
async function recordWhatIsShown(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __shown: string[] };
    w.__shown = [];
    const take = () => {
      const main = document.querySelector('main');
      if (main) w.__shown.push(main.innerText);
    };
    take();
    new MutationObserver(take).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

async function everShown(page: Page): Promise<string> {
  return page.evaluate(() => (window as unknown as { __shown: string[] }).__shown.join('\n'));
}

test("a desk's Take payment follows its own charge only, while another desk takes a payment meanwhile", async () => {
  const a = deskA!.page;
  const c = deskC!.page;
  await recordWhatIsShown(a);

  // A: UGX 15,000. The service is slow to answer A's initialize.
  await fillPayment(a, { amount: '15000', description: 'Phone order desk A', card: VISA, cvv: '918' });
  sb.controls.clearFaults();
  sb.controls.addFault({ route: 'initialize', kind: 'latency', latency_ms: SLOW_INITIALIZE_MS, times: 1 });
  await pressCharge(a);
  // A's initialize has reached the sandbox and is held there (the fault is taken).
  await expect.poll(() => sb.controls.state().faults.length, { timeout: 20_000 }).toBe(0);

  // Meanwhile C takes a different payment, UGX 35,000, and its customer pays.
  await fillPayment(c, { amount: '35000', description: 'Phone order desk C', card: VISA, cvv: '532' });
  await pressCharge(c);
  await expect(outcome(c).getByRole('heading', { name: "Waiting for the customer's payment" })).toBeVisible();
  const cRef = await referenceShown(c);
  // A's desk has C's payment, pending, in its copy: the pull told A's screens about it.
  await expect.poll(() => statusOnA(cRef), { timeout: 20_000 }).toBe('PENDING');
  const cPay = await paymentWindow(deskC!);
  await cPay.getByRole('button', { name: /^Pay / }).click();
  await expect(outcome(c).getByRole('heading', { name: 'Approved' })).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => statusOnA(cRef), { timeout: 20_000 }).toBe('COMPLETED');

  // A is still charging its own payment: no Approved, no receipt, nothing of C's.
  await expect(outcome(a).getByRole('heading', { name: 'Approved' })).toHaveCount(0);
  await expect(a.getByRole('region', { name: 'Receipt' })).toHaveCount(0);
  await a.screenshot({ path: screenshotPath('team-concurrent-a-while-c-paid') });

  // A's initialize is answered: A's own window opens, A's screen shows A's payment; A's customer pays.
  const aPay = await paymentWindow(deskA!);
  await expect(outcome(a).getByRole('heading', { name: "Waiting for the customer's payment" })).toBeVisible();
  const aRef = await referenceShown(a);
  expect(aRef).not.toBe(cRef);
  await expect(outcome(a)).toContainText('UGX 15,000');
  await aPay.getByRole('button', { name: /^Pay / }).click();
  await expect(outcome(a).getByRole('heading', { name: 'Approved' })).toBeVisible({ timeout: 30_000 });
  await expect(outcome(a)).not.toHaveAttribute('data-in-flight', 'true');
  const receipt = a.getByRole('region', { name: 'Receipt' });
  await expect(receipt).toContainText(aRef);
  await expect(receipt).toContainText('UGX 15,000');
  await expect(receipt).toContainText(ANN.login);
  await a.screenshot({ path: screenshotPath('team-concurrent-a-approved') });

  // Through all of it, A's screen never showed C's reference, amount or operator.
  const shown = await everShown(a);
  expect(shown).toContain(aRef);
  expect(shown).not.toContain(cRef);
  expect(shown).not.toContain('35,000');
  expect(shown).not.toContain(CARL.login);
});

test('the same card and amount at another desk seconds later asks "Charge this card again?"; "Do not charge" keeps the typed card', async () => {
  const a = deskA!.page;
  const c = deskC!.page;
  // A fresh form on both desks: leave Take payment and come back.
  for (const p of [a, c]) {
    const nav = p.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Balances' }).click();
    await nav.getByRole('link', { name: 'Take payment' }).click();
    await expect(p.getByTestId('card-limits')).toBeVisible();
  }
  // A charges UGX 25,000 on the card; the page is open (the payment is pending).
  await fillPayment(a, { amount: '25000', description: 'Phone order repeat A', card: VISA, cvv: '371' });
  await pressCharge(a);
  await expect(outcome(a).getByRole('heading', { name: "Waiting for the customer's payment" })).toBeVisible();
  const aPay = await paymentWindow(deskA!);
  const before = sb.controls.state().collections;

  // Three seconds later C types the same card and amount.
  await new Promise((r) => setTimeout(r, 3_000));
  await fillPayment(c, { amount: '25000', description: 'Phone order repeat C', card: VISA, cvv: '371' });
  await pressCharge(c);
  const dialog = c.getByRole('dialog', { name: 'Charge this card again?' });
  await expect(dialog).toContainText('UGX 25,000');
  await expect(dialog).toContainText(`by ${ANN.login} at`);
  await c.screenshot({ path: screenshotPath('team-repeat-across-desks') });
  await dialog.getByRole('button', { name: 'Do not charge' }).click();
  await expect(dialog).toBeHidden();
  await expect(c.getByText('Not charged again.')).toBeVisible();
  // Nothing was sent, and nothing typed was wiped: the card is still in the form.
  expect(sb.controls.state().collections).toBe(before);
  const form = c.getByRole('form', { name: 'Take payment' });
  await expect(form.getByLabel('Card number')).toHaveValue(VISA);
  await expect(form.getByLabel('CVV')).toHaveValue('371');
  await c.screenshot({ path: screenshotPath('team-repeat-declined-card-kept') });

  // Asked again and confirmed: it goes through as a new payment, and the card leaves the form.
  await pressCharge(c);
  await dialog.getByRole('button', { name: 'Charge again' }).click();
  await expect(outcome(c).getByRole('heading', { name: "Waiting for the customer's payment" })).toBeVisible();
  expect(await c.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).not.toContain(
    VISA,
  );
  const cPay = await paymentWindow(deskC!);
  await cPay.getByRole('button', { name: 'Cancel payment' }).click();
  await expect(outcome(c).getByRole('heading', { name: 'Cancelled' })).toBeVisible({ timeout: 30_000 });
  await aPay.getByRole('button', { name: 'Cancel payment' }).click();
  await expect(outcome(a).getByRole('heading', { name: 'Cancelled' })).toBeVisible({ timeout: 30_000 });
  expect(sb.controls.state().collections).toBe(before + 1);
});
