// No one is shown another's work, on any screen (issue 28's problems 1, 2 and 5; issue 38, item 5), through
// the screens of four team desks at once. Every part is real: a PostgreSQL server of this spec's own, `team
// init` and `team operators add` through the CLI, `merchant-desk serve` receiving the sandbox's signed
// callbacks, the sandbox over HTTP, and four desktops (the Chromium shell app, each on its own data folder,
// connected with `connect --profile team`): ann and carl take payments (support); kofi (back office) and
// ada (admin) have the team's other screens open while they do: Balances, Payment options, Collections
// (list and detail), Reconciliation (exceptions, detail, the resolve form), Reports and Settings.
//
// Each desk's whole window is recorded from the moment it starts (support/shown.ts: every change of the
// document, the status bar, notices, dialogs, receipts and open details included, and every page its
// payment windows load). After each round, what every desk was ever shown is held to the rules of
// support/own-work.ts, which say per screen what "another's work" is, against the team record and the
// service's own record of each reference. The steps wait on what a person would see, never on a pause.
//
// - Round 1: ann presses Charge while the service is slow to answer; carl takes a whole payment meanwhile.
//   ann's screen follows her own charge only; her window is her own payment page.
// - Round 2: ann and carl press Charge at the same instant (one approved, one declined), while the service
//   changes ann's first payment after the fact: kofi's open detail follows it.
// - Round 3: carl charges the card ann just charged, for the same amount: he is asked, naming ann; "Do not
//   charge" keeps the typed card. Meanwhile kofi and ada resolve the same exception at the same moment: the
//   one refused is told whose resolution stood, with their own note. Then carl confirms, and both
//   customers cancel, while kofi reads Settings and ada exports the collections.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { test, expect, type Page } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { startServe, stopServe, type Serve } from '../serve/harness.js';
import { openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';
import {
  connectTeamDesk,
  initTeam,
  signInAtLockScreen,
  startTeamServer,
  type Operator,
  type TeamServer,
} from './support/team.js';
import { watchDesk, type DeskWatch } from './support/shown.js';
import { anotherWorkShown, ugx, type ChargeOp, type ResolveOp, type Truth } from './support/own-work.js';

test.describe.configure({ mode: 'serial', timeout: 300_000 });

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const ANN = { login: 'ann', role: 'support', name: 'Ann Support', password: 'ann password 1234' };
const CARL = { login: 'carl', role: 'support', name: 'Carl Support', password: 'carl password 1234' };
const KOFI = { login: 'kofi', role: 'back_office', name: 'Kofi Back Office', password: 'kofi password 1234' };
const ADA = { login: 'ada', role: 'admin', name: 'Ada Admin', password: 'ada password 1234' };
const RECEIVER = { login: 'serve_rx', role: 'receiver', name: 'serve', password: 'serve password 1234' };
const DESKS = [ANN, CARL, KOFI, ADA];
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-own-work-${process.pid}-${Date.now()}` };
const FUTURE_YEAR = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0');
const VISA = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';
/** How long the sandbox holds ann's first initialize: carl's whole payment fits in it (the client gives up at 20 s). */
const SLOW_INITIALIZE_MS = 15_000;

interface Desk {
  op: Operator;
  app: RunningApp;
  watch: DeskWatch;
}

let dir: string;
let team: TeamServer;
let sb: Sandbox;
let serve: Serve | undefined;
const desks = new Map<string, Desk>();
/** Every Charge pressed and every Resolve pressed, as the people did them. */
const charges: ChargeOp[] = [];
const resolves: ResolveOp[] = [];
/** References as the screens showed them, to drive the next steps (the verdict reads the record instead). */
const shownRefs: Record<string, string> = {};

const desk = (op: Operator): Desk => desks.get(op.login)!;
const page = (op: Operator): Page => desk(op).app.page;

test.beforeAll(async () => {
  // A database, serve and four desks, each a process of its own, on a shared 2-core machine.
  test.setTimeout(600_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-own-work-'));
  [team, sb] = await Promise.all([startTeamServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
  // The desks' data folders are connected (keys, the team database's address) while the team is made:
  // connect signs nobody in.
  const connecting = Promise.all(
    DESKS.map((op) => connectTeamDesk({ dir, sandbox: sb, team, login: op.login, env: KEYCHAIN })),
  );
  connecting.catch(() => undefined); // awaited below; a failure there is the one reported
  await initTeam({ team, dir, admin: ADMIN, operators: [...DESKS, RECEIVER] });
  const creds = path.join(dir, 'credentials');
  fs.mkdirSync(creds, { mode: 0o700 });
  fs.writeFileSync(path.join(creds, 'signing-key'), `${sb.signingKey}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(creds, 'service-public-key.pem'), sb.servicePublicKeyPem, { mode: 0o600 });
  // serve first, on its own: it answers the sandbox's callbacks from the first charge on.
  serve = await startServe(
    [
      ...['--data-dir', path.join(dir, 'serve'), '--database', team.urlAs(RECEIVER.login)],
      ...['--listen', '127.0.0.1:0', '--service-url', sb.baseUrl],
    ],
    {
      MERCHANT_DESK_MERCHANT_PUBLIC_KEY: sb.publicKey,
      MERCHANT_DESK_MERCHANT_SECRET_KEY: sb.secretKey,
      PGPASSWORD: RECEIVER.password,
      CREDENTIALS_DIRECTORY: creds,
    },
  );
  const dataDirs = await connecting;
  await Promise.all(
    DESKS.map(async (op, i) => {
      const app = await startApp({ dataDir: dataDirs[i]!, env: KEYCHAIN, timeoutMs: 180_000 });
      await app.page.setViewportSize({ width: 1280, height: 900 });
      desks.set(op.login, { op, app, watch: await watchDesk(app.browser, app.page) });
    }),
  );
  // The merchant's callback URL, as the service is told it (here without the reverse proxy).
  sb.controls.config({ callback_url: `${serve.base}/callbacks/collections` });
  for (const op of DESKS) await signInAtLockScreen(page(op), op.login, op.password);
  for (const op of [ANN, CARL]) {
    await openScreen(page(op), 'Take payment');
    await expect(page(op).getByTestId('card-limits')).toBeVisible({ timeout: 30_000 });
  }
  await openScreen(page(KOFI), 'Collections');
  await openScreen(page(ADA), 'Balances');
});

test.afterAll(async () => {
  // One after another: four desks closing at once on two cores could each pass the 1.5 s a stop may take.
  const stopped: [Desk, number | null, string][] = [];
  for (const d of desks.values()) {
    d.watch.stop();
    const code = await d.app.stop();
    const log = path.join(d.app.dataDir, 'logs', 'merchant-desk.log');
    stopped.push([d, code, fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-3000) : d.app.stderr()]);
  }
  const serveCode = await stopServe(serve);
  await sb?.close();
  await team?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  for (const [d, code, log] of stopped) expect(code, `${d.op.login}'s desk exit code; its log ends:\n${log}`).toBe(0);
  if (serveCode !== undefined) expect(serveCode, 'serve exit code').toBe(0);
});

// ---- what people do ------------------------------------------------------------------------------

interface Payment {
  amount: number;
  description: string;
  card: string;
  cvv: string;
}

async function fillPayment(p: Page, pay: Payment) {
  const form = p.getByRole('form', { name: 'Take payment' });
  await form.getByLabel('Currency').selectOption('UGX');
  await form.getByLabel('Amount').fill(String(pay.amount));
  await form.getByLabel('Description').fill(pay.description);
  await form.getByLabel('Card number').fill(pay.card);
  await form.getByLabel('Expiry month').fill('12');
  await form.getByLabel('Expiry year').fill(FUTURE_YEAR);
  await form.getByLabel('CVV').fill(pay.cvv);
  await form.getByLabel('Cardholder first name').fill('Jane');
  await form.getByLabel('Cardholder last name').fill('Doe');
}

/** Presses Charge on `op`'s desk; the first press of a payment is noted as that person's charge. */
async function pressCharge(op: Operator, pay?: Payment) {
  if (pay) charges.push({ login: op.login, description: pay.description, amount: pay.amount, pressedAt: Date.now() });
  await page(op)
    .getByRole('form', { name: 'Take payment' })
    .getByRole('button', { name: /^Charge/ })
    .click();
}

const outcome = (p: Page) => p.getByTestId('payment-outcome');
const waiting = (p: Page) => outcome(p).getByRole('heading', { name: "Waiting for the customer's payment" });

async function referenceShown(p: Page): Promise<string> {
  const m = /MD-\d{8}-[A-Z0-9]+/.exec(await outcome(p).innerText());
  if (!m) throw new Error(`no reference in: ${await outcome(p).innerText()}`);
  return m[0];
}

/** The hosted payment page in a desk's payment window, once it is open and its page shown (and recorded). */
async function paymentWindow(op: Operator): Promise<Page> {
  const prefix = `${sb.baseUrl}/pay/`;
  const find = () =>
    desk(op)
      .app.browser.contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url().startsWith(prefix) && !p.isClosed());
  await expect.poll(() => find() !== undefined, { timeout: 30_000 }).toBe(true);
  const pay = find()!;
  await expect.poll(() => desk(op).watch.paymentPages.some((s) => s.url === pay.url() && s.text !== null)).toBe(true);
  return pay;
}

/** The final word a desk announced for its payment is the status the service recorded for that reference. */
async function expectAnnounced(op: Operator, word: 'Approved' | 'Declined' | 'Cancelled', status: string) {
  const p = page(op);
  await expect(outcome(p).getByRole('heading', { name: word })).toBeVisible({ timeout: 30_000 });
  expect(sb.controls.collection(await referenceShown(p)).status).toBe(status);
}

async function newPayment(op: Operator) {
  await page(op).getByRole('button', { name: 'New payment' }).click();
  await expect(page(op).getByRole('form', { name: 'Take payment' })).toBeVisible();
}

/** A collection's status in a desk's own SQLite copy (read-only, beside the running app). */
function statusOn(op: Operator, reference: string): string | null {
  const file = path.join(desk(op).app.dataDir, 'profiles', 'team', 'merchant-desk.sqlite');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const r = db.prepare('SELECT status FROM collections WHERE merchant_reference = ?').get(reference) as
      { status: string } | undefined;
    return r?.status ?? null;
  } finally {
    db.close();
  }
}

const rowOf = (p: Page, table: string, ref: string) =>
  p.getByRole('table', { name: table }).getByRole('row', { name: new RegExp(ref) });

async function shoot(name: string, ...ops: Operator[]) {
  for (const op of ops) await page(op).screenshot({ path: screenshotPath(`own-work-${name}-${op.login}`) });
}

// ---- the verdict ---------------------------------------------------------------------------------

/** What the team's intents of `currency` add up to at the service, failed and cancelled ones left out (whole units). */
async function collectedTodayAtTheService(currency: string): Promise<number> {
  const r = await team.owner.query<{ merchant_reference: string; amount_minor: string }>(
    'SELECT merchant_reference, amount_minor FROM team.intents WHERE currency = $1',
    [currency],
  );
  return r.rows
    .filter((i) => !['FAILED', 'CANCELLED'].includes(sb.controls.collection(i.merchant_reference).status))
    .reduce((sum, i) => sum + Number(i.amount_minor), 0);
}

/** The team record and the service's own record, as they stand now. */
async function truthNow(): Promise<Truth> {
  const intents = await team.owner.query<{
    merchant_reference: string;
    created_by: string;
    description: string;
    amount_minor: string;
    created_at: Date;
    last4: string | null;
  }>(
    `SELECT i.merchant_reference, i.created_by, i.description, i.amount_minor, i.created_at,
            (SELECT e.payload::json->>'cardLast4' FROM team.events e
              WHERE e.merchant_reference = i.merchant_reference AND e.source = 'intent' LIMIT 1) AS last4
       FROM team.intents i`,
  );
  const events = await team.owner.query<{
    merchant_reference: string;
    source: string;
    actor: string;
    note: string | null;
    payment_url: string | null;
  }>('SELECT merchant_reference, source, actor, note, payment_url FROM team.events ORDER BY seq');
  const truth: Truth = {
    intents: new Map(),
    service: new Map(),
    initiateUrls: new Map(),
    resolutions: new Map(),
    notedBy: new Set(),
    actors: new Map(),
  };
  const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => m.set(k, [...(m.get(k) ?? []), v]);
  for (const i of intents.rows) {
    const ref = i.merchant_reference;
    truth.intents.set(ref, {
      createdBy: i.created_by,
      description: i.description,
      amountMinor: Number(i.amount_minor),
      createdAt: i.created_at.getTime(),
      last4: i.last4,
    });
    const s = sb.controls.collection(ref);
    truth.service.set(ref, { statuses: [...new Set(s.history.map((h) => h.status))], paymentUrl: s.payment_url });
  }
  for (const e of events.rows) {
    const ref = e.merchant_reference;
    truth.actors.set(ref, (truth.actors.get(ref) ?? new Set()).add(e.actor));
    if (e.note !== null) truth.notedBy.add(`${e.note}\u0000${e.actor}`);
    if (e.source === 'manual') push(truth.resolutions, ref, { actor: e.actor, note: e.note ?? '' });
    if (e.source === 'initiate' && e.payment_url) push(truth.initiateUrls, ref, e.payment_url);
  }
  return truth;
}

/** What each desk's whole window showed, since it started, that support/own-work.ts's rules refuse. */
async function anotherWorkShownAnywhere(): Promise<{ login: string; states: number; wrong: string[] }[]> {
  const truth = await truthNow();
  const logins = [...DESKS, ADMIN, RECEIVER].map((o) => o.login);
  const found = [];
  for (const d of desks.values()) {
    const shown = await d.watch.shown();
    const wrong = anotherWorkShown(
      { login: d.op.login, role: d.op.role.replace('_', ' '), shown, paymentPages: d.watch.paymentPages },
      { logins, charges, resolves },
      truth,
    );
    found.push({ login: d.op.login, states: shown.length, wrong });
  }
  return found;
}

async function expectNoOneShownAnothersWork() {
  for (const { login, states, wrong } of await anotherWorkShownAnywhere())
    expect(wrong, `what ${login}'s window showed (${states} states recorded)`).toEqual([]);
}

// A round that failed on what it waited for says what every window had shown until then.
test.afterEach(async () => {
  const testInfo = test.info();
  if (testInfo.status === testInfo.expectedStatus || desks.size === 0) return;
  const found = await anotherWorkShownAnywhere().catch((e: unknown) => [{ login: '?', states: 0, wrong: [String(e)] }]);
  await testInfo.attach('what each desk was shown that was not its own', {
    body: found.map((f) => `${f.login} (${f.states} states): ${f.wrong.join('\n  ') || 'nothing'}`).join('\n'),
    contentType: 'text/plain',
  });
});

// ---- the rounds ----------------------------------------------------------------------------------

test("round 1: ann's Take payment follows her own charge only, while carl takes a whole payment in the middle of it", async () => {
  const [a, c, k] = [page(ANN), page(CARL), page(KOFI)];

  // ann: UGX 15,000. The service is slow to answer her initialize.
  const annPay = { amount: 15000, description: 'Ann slow phone order', card: VISA, cvv: '918' };
  await fillPayment(a, annPay);
  sb.controls.clearFaults();
  sb.controls.addFault({ route: 'initialize', kind: 'latency', latency_ms: SLOW_INITIALIZE_MS, times: 1 });
  await pressCharge(ANN, annPay);
  // ann's initialize has reached the sandbox and is held there (the fault is taken).
  await expect.poll(() => sb.controls.state().faults.length, { timeout: 20_000 }).toBe(0);

  // Meanwhile carl takes a different payment, UGX 35,000, and his customer pays.
  const carlPay = { amount: 35000, description: 'Carl quick phone order', card: VISA, cvv: '532' };
  await fillPayment(c, carlPay);
  await pressCharge(CARL, carlPay);
  await expect(waiting(c)).toBeVisible();
  const cRef = await referenceShown(c);
  // ann's desk has carl's payment, pending, in its copy: the pull told ann's screens about it.
  await expect.poll(() => statusOn(ANN, cRef), { timeout: 20_000 }).toBe('PENDING');
  await (await paymentWindow(CARL)).getByRole('button', { name: /^Pay / }).click();
  await expectAnnounced(CARL, 'Approved', 'COMPLETED');
  await expect.poll(() => statusOn(ANN, cRef), { timeout: 20_000 }).toBe('COMPLETED');
  // kofi's Collections list follows the team: carl's payment shows approved.
  await expect(rowOf(k, 'Collections', cRef)).toContainText('Approved', { timeout: 20_000 });

  // ann is still charging her own payment: no Approved, no receipt, nothing of carl's.
  await expect(outcome(a).getByRole('heading', { name: 'Approved' })).toHaveCount(0);
  await expect(a.getByRole('region', { name: 'Receipt' })).toHaveCount(0);
  await shoot('round1-while-carl-paid', ANN, KOFI, ADA);

  // ann's initialize is answered: her own window opens, her screen shows her payment; her customer pays.
  const aPay = await paymentWindow(ANN);
  await expect(waiting(a)).toBeVisible();
  const aRef = await referenceShown(a);
  expect(aRef).not.toBe(cRef);
  await expect(outcome(a)).toContainText(ugx(15000));
  await aPay.getByRole('button', { name: /^Pay / }).click();
  await expectAnnounced(ANN, 'Approved', 'COMPLETED');
  await expect(outcome(a)).not.toHaveAttribute('data-in-flight', 'true');
  const receipt = a.getByRole('region', { name: 'Receipt' });
  await expect(receipt).toContainText(aRef);
  await expect(receipt).toContainText(ugx(15000));
  await expect(receipt).toContainText(ANN.login);
  await expect(rowOf(k, 'Collections', aRef)).toContainText('Approved', { timeout: 20_000 });
  await shoot('round1-done', ANN, CARL, KOFI);
  shownRefs.annSlow = aRef;
  shownRefs.carlQuick = cRef;
  await Promise.all([newPayment(ANN), newPayment(CARL)]);

  await expectNoOneShownAnothersWork();
});

test('round 2: ann and carl press Charge at the same instant; each window and result is their own, and open screens follow the team', async () => {
  const [a, c, k, ad] = [page(ANN), page(CARL), page(KOFI), page(ADA)];
  // kofi opens ann's first payment; ada reads the payment options.
  await rowOf(k, 'Collections', shownRefs.annSlow!).click();
  const detail = k.getByRole('heading', { level: 2, name: new RegExp(shownRefs.annSlow!) });
  await expect(detail).toContainText('Approved');
  await openScreen(ad, 'Payment options');

  const annPay = { amount: 12000, description: 'Ann same-moment order', card: VISA, cvv: '204' };
  const carlPay = { amount: 18000, description: 'Carl same-moment order', card: DECLINED, cvv: '611' };
  await Promise.all([fillPayment(a, annPay), fillPayment(c, carlPay)]);
  // The service changes ann's first payment after the fact (its callback goes through serve), as both press.
  await sb.controls.flip(shownRefs.annSlow!, 'FAILED');
  await Promise.all([pressCharge(ANN, annPay), pressCharge(CARL, carlPay)]);
  await Promise.all([expect(waiting(a)).toBeVisible(), expect(waiting(c)).toBeVisible()]);
  const [aPay, cPay] = await Promise.all([paymentWindow(ANN), paymentWindow(CARL)]);
  await expect(aPay.getByText(annPay.description)).toBeVisible();
  await expect(cPay.getByText(carlPay.description)).toBeVisible();
  await Promise.all([
    aPay.getByRole('button', { name: /^Pay / }).click(),
    cPay.getByRole('button', { name: /^Pay / }).click(),
  ]);
  await Promise.all([expectAnnounced(ANN, 'Approved', 'COMPLETED'), expectAnnounced(CARL, 'Declined', 'FAILED')]);
  await expect(a.getByRole('region', { name: 'Receipt' })).toContainText(ugx(annPay.amount));
  await expect(c.getByRole('region', { name: 'Receipt' })).toContainText(ugx(carlPay.amount));

  // ada's Payment options, open all along, follows the team's day: the UGX card option's "Collected today"
  // is what the service collected for the whole team (declined and reversed payments not counted).
  const collected = (await collectedTodayAtTheService('UGX')).toLocaleString('en');
  const ugxCard = ad.getByRole('table', { name: 'Payment options' }).getByRole('row', { name: /\(UGX\)/ });
  await expect(ugxCard.first()).toContainText(new RegExp(`[^\\d,]${collected} UGX \\(`));

  // kofi's detail, open all along, follows the change: declined now, changed after final.
  await expect(detail).toContainText('Declined', { timeout: 20_000 });
  await expect(k.getByText('Changed after final').first()).toBeVisible();
  await shoot('round2-done', ANN, CARL, KOFI, ADA);
  await Promise.all([newPayment(ANN), newPayment(CARL)]);

  await expectNoOneShownAnothersWork();
});

test('round 3: carl is asked before charging the card ann just charged; kofi and ada resolve one exception at once; others read Settings and export', async () => {
  const [a, c, k, ad] = [page(ANN), page(CARL), page(KOFI), page(ADA)];
  const exception = shownRefs.annSlow!;
  // kofi and ada open ann's first payment, changed after final, and each types a note.
  const notes = {
    [KOFI.login]: 'Issuer reversed it; customer told by phone.',
    [ADA.login]: 'Customer paid the difference in cash.',
  };
  for (const op of [KOFI, ADA]) {
    const p = page(op);
    await openScreen(p, 'Reconciliation');
    await expect(rowOf(p, 'Exceptions', exception)).toContainText('Changed after final', { timeout: 30_000 });
    await rowOf(p, 'Exceptions', exception).click();
    await p
      .getByRole('form', { name: `Resolve ${exception}` })
      .getByLabel('Resolution note')
      .fill(notes[op.login]!);
  }

  // ann charges UGX 25,000 on the card; her customer's page is open (the payment is pending).
  const annPay = { amount: 25000, description: 'Ann repeat order', card: VISA, cvv: '371' };
  await fillPayment(a, annPay);
  await pressCharge(ANN, annPay);
  await expect(waiting(a)).toBeVisible();
  const aPay = await paymentWindow(ANN);
  const before = sb.controls.state().collections;

  // carl types the same card and amount once ann's window is open.
  const carlPay = { amount: 25000, description: 'Carl repeat order', card: VISA, cvv: '371' };
  await fillPayment(c, carlPay);
  await pressCharge(CARL, carlPay);
  const dialog = c.getByRole('dialog', { name: 'Charge this card again?' });
  await expect(dialog).toContainText(ugx(25000));
  await expect(dialog).toContainText(`by ${ANN.login} at`);
  await shoot('round3-asked', CARL);
  await dialog.getByRole('button', { name: 'Do not charge' }).click();
  await expect(dialog).toBeHidden();
  await expect(c.getByText('Not charged again.')).toBeVisible();
  // Nothing was sent, and nothing typed was wiped: the card is still in the form.
  expect(sb.controls.state().collections).toBe(before);
  const form = c.getByRole('form', { name: 'Take payment' });
  await expect(form.getByLabel('Card number')).toHaveValue(VISA);
  await expect(form.getByLabel('CVV')).toHaveValue('371');

  // Meanwhile kofi and ada press Resolve at the same moment: one stands, the other is told whose did.
  const forms = [KOFI, ADA].map((op) => page(op).getByRole('form', { name: `Resolve ${exception}` }));
  for (const op of [KOFI, ADA]) resolves.push({ login: op.login, reference: exception, note: notes[op.login]! });
  await Promise.all(forms.map((f) => f.getByRole('button', { name: 'Resolve with note' }).click()));
  const refusal = (p: Page) => p.getByRole('alert').filter({ hasText: 'Your resolution was not recorded' });
  await expect.poll(async () => (await refusal(k).count()) + (await refusal(ad).count()), { timeout: 10_000 }).toBe(1);
  const lost = (await refusal(k).count()) ? k : ad;
  for (const p of [k, ad])
    await expect(p.getByRole('status').filter({ hasText: 'Resolved by' })).toBeVisible({ timeout: 10_000 });
  await shoot('round3-resolved', KOFI, ADA);
  await expect(refusal(lost)).toContainText(lost === k ? notes[KOFI.login]! : notes[ADA.login]!);

  // kofi reads Settings and ada exports the collections while carl confirms and both customers cancel.
  await openScreen(k, 'Settings');
  await expect(k.getByLabel('Signed in as')).toContainText(KOFI.login);
  await openScreen(ad, 'Reports');
  await ad
    .getByRole('form', { name: 'Collections report' })
    .getByRole('button', { name: 'Export collections' })
    .click();
  await pressCharge(CARL);
  await dialog.getByRole('button', { name: 'Charge again' }).click();
  await expect(waiting(c)).toBeVisible();
  expect(await c.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).not.toContain(
    VISA,
  );
  const cPay = await paymentWindow(CARL);
  await expect(cPay.getByText(carlPay.description)).toBeVisible();
  await Promise.all([
    cPay.getByRole('button', { name: 'Cancel payment' }).click(),
    aPay.getByRole('button', { name: 'Cancel payment' }).click(),
  ]);
  await Promise.all([expectAnnounced(CARL, 'Cancelled', 'CANCELLED'), expectAnnounced(ANN, 'Cancelled', 'CANCELLED')]);
  expect(sb.controls.state().collections).toBe(before + 1);
  await expect(ad.getByRole('status', { name: 'Collections report result' })).toContainText('Exported');
  await shoot('round3-done', ANN, CARL, KOFI, ADA);

  await expectNoOneShownAnothersWork();
});
