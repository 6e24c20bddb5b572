// The team workspace end to end, every part a real process: a PostgreSQL server of this spec's own,
// `merchant-desk team init` and `team operators add` (the CLI), `merchant-desk serve` as the callback
// receiver (the sandbox's signed callbacks go to it), and two desktops, each the Chromium shell app on
// its own data folder connected with `connect --profile team`: A signed in as ann (support), B as bob
// (back office). A charge taken through A's Take payment screen shows on B with its final status once
// the callback reached serve; a final-status change becomes an exception on both, B resolves it and A
// sees the resolution; a callback the sandbox delivers twice is stored once in team.events.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { startServe, type Serve } from '../serve/harness.js';
import { docsScreenshot, startApp, type RunningApp } from './support/app.js';
import { cli, expectOk, signInAtLockScreen, startTeamServer, type TeamServer } from './support/team.js';

// One flow, many processes: each step builds on the one before.
test.describe.configure({ mode: 'serial', timeout: 300_000 });

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const ANN = { login: 'ann', role: 'support', name: 'Ann Support', password: 'ann password 1234' };
const BOB = { login: 'bob', role: 'back_office', name: 'Bob Back Office', password: 'bob password 1234' };
const RECEIVER = { login: 'serve_rx', role: 'receiver', name: 'serve', password: 'serve password 1234' };
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-team-${process.pid}-${Date.now()}` };
const FUTURE_YEAR = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0');

let dir: string;
let team: TeamServer;
let sb: Sandbox;
let serve: Serve | undefined;
let deskA: RunningApp | undefined;
let deskB: RunningApp | undefined;

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-team-'));
  [team, sb] = await Promise.all([startTeamServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
});

test.afterAll(async () => {
  // Signed-in team desks and serve shut down cleanly on SIGTERM (the sync and the pools closed).
  const codes = await Promise.all([deskA, deskB].map((d) => d?.stop()));
  let serveCode: number | null | undefined;
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    serveCode = await serve.exited;
  }
  await sb?.close();
  await team?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  for (const code of codes) if (code !== undefined) expect(code, 'a desk exit code').toBe(0);
  if (serveCode !== undefined) expect(serveCode).toBe(0);
});

async function teamEvents(ref: string, source?: string): Promise<{ source: string; status: string; actor: string }[]> {
  const r = await team.owner.query<{ source: string; status: string; actor: string }>(
    `SELECT source, status, actor FROM team.events WHERE merchant_reference = $1 ${source ? 'AND source = $2' : ''} ORDER BY seq`,
    source ? [ref, source] : [ref],
  );
  return r.rows;
}

/** A data folder whose team profile is connected, through the CLI as a user would, for `login`. */
async function connectDesk(login: string): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(dir, `desk-${login}-`));
  const pem = path.join(dir, 'service-public-key.pem');
  fs.writeFileSync(pem, sb.servicePublicKeyPem);
  const r = await cli(
    [
      '--data-dir',
      dataDir,
      'connect',
      '--profile',
      'team',
      '--base-url',
      sb.baseUrl,
      '--public-key',
      sb.publicKey,
      '--service-key',
      pem,
      '--secret-key-stdin',
      '--database',
      team.urlAs(login),
      '--login',
      login,
    ],
    { stdin: `${sb.secretKey}\n`, env: KEYCHAIN },
  );
  expectOk(r, `connect --profile team as ${login}`);
  return dataDir;
}

/** Re-opens a screen so it reads the local copy again (the sync writes it behind the screen's back). */
async function reopen(page: Page, name: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: name === 'Balances' ? 'Collections' : 'Balances' }).click();
  await nav.getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

function collectionsRow(page: Page, ref: string) {
  return page.getByRole('table', { name: 'Collections' }).getByRole('row', { name: new RegExp(ref) });
}

function exceptionsRow(page: Page, ref: string) {
  return page.getByRole('table', { name: 'Exceptions' }).getByRole('row', { name: new RegExp(ref) });
}

let ref = '';

test('team init and operators through the CLI on an empty database', async () => {
  const owner = `postgres://${team.server.superuser}@${team.server.host}:${team.server.port}/${team.database}`;
  const init = await cli(
    ['--data-dir', path.join(dir, 'cli'), 'team', 'init', '--database', owner, '--admin', ADMIN.login],
    {
      stdin: `${team.server.password}\n${ADMIN.password}\n`,
    },
  );
  expectOk(init, 'team init');
  expect(init.stdout).toContain(`added the admin operator ${ADMIN.login}`);
  for (const op of [ANN, BOB, RECEIVER]) {
    const add = await cli(
      [
        '--data-dir',
        path.join(dir, 'cli'),
        'team',
        'operators',
        'add',
        '--database',
        team.urlAs(ADMIN.login),
        '--login',
        op.login,
        '--role',
        op.role,
        '--name',
        op.name,
      ],
      { stdin: `${ADMIN.password}\n`, env: { MERCHANT_DESK_NEW_PASSWORD: op.password } },
    );
    expectOk(add, `team operators add ${op.login}`);
  }
  const roles = await team.owner.query<{ login: string; role: string }>(
    'SELECT login, role FROM team.operators ORDER BY login',
  );
  expect(roles.rows).toEqual([
    { login: ANN.login, role: ANN.role },
    { login: BOB.login, role: BOB.role },
    { login: ADMIN.login, role: 'admin' },
    { login: RECEIVER.login, role: RECEIVER.role },
  ]);
});

test('serve runs as the receiver login and the sandbox sends its callbacks to it', async () => {
  // Keys as a service manager hands them over: credential files and the environment, never argv.
  const creds = path.join(dir, 'credentials');
  fs.mkdirSync(creds, { mode: 0o700 });
  fs.writeFileSync(path.join(creds, 'signing-key'), `${sb.signingKey}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(creds, 'service-public-key.pem'), sb.servicePublicKeyPem, { mode: 0o600 });
  serve = await startServe(
    [
      '--data-dir',
      path.join(dir, 'serve'),
      '--database',
      team.urlAs(RECEIVER.login),
      '--listen',
      '127.0.0.1:0',
      '--service-url',
      sb.baseUrl,
    ],
    {
      MERCHANT_DESK_MERCHANT_PUBLIC_KEY: sb.publicKey,
      MERCHANT_DESK_MERCHANT_SECRET_KEY: sb.secretKey,
      PGPASSWORD: RECEIVER.password,
      CREDENTIALS_DIRECTORY: creds,
    },
  );
  expect((await fetch(`${serve.base}/healthz`)).status).toBe(200);
  // The merchant's callback URL, as the service is told it (here without the reverse proxy).
  sb.controls.config({ callback_url: `${serve.base}/callbacks/collections` });
});

test('two desktops sign in at their lock screens; a card payment on A shows on B with its final status', async () => {
  const [dataA, dataB] = await Promise.all([connectDesk(ANN.login), connectDesk(BOB.login)]);
  [deskA, deskB] = await Promise.all([
    startApp({ dataDir: dataA, env: KEYCHAIN }),
    startApp({ dataDir: dataB, env: KEYCHAIN }),
  ]);
  const a = deskA.page;
  const b = deskB.page;
  // The size the docs screenshots are taken at, from the start: no re-layout just before a screenshot.
  for (const p of [a, b]) await p.setViewportSize({ width: 1280, height: 800 });
  // A team desk starts locked; its lock screen is the sign-in.
  await expect(a.getByRole('heading', { level: 1, name: `Sign in as ${ANN.login}` })).toBeVisible({ timeout: 30_000 });
  await docsScreenshot(a, 'team-sign-in');
  await signInAtLockScreen(a, ANN.login, ANN.password);
  await signInAtLockScreen(b, BOB.login, BOB.password);

  // Desktop A: ann takes a card payment through Take payment; the customer pays in the payment window.
  await a.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Take payment' }).click();
  const form = a.getByRole('form', { name: 'Take payment' });
  await expect(a.getByTestId('card-limits')).toBeVisible();
  await form.getByLabel('Currency').selectOption('UGX');
  await form.getByLabel('Amount').fill('25000');
  await form.getByLabel('Description').fill('Phone order team e2e');
  await form.getByLabel('Customer name').fill('Sam Okello');
  await form.getByLabel('Card number').fill('4242 4242 4242 4242');
  await form.getByLabel('Expiry month').fill('12');
  await form.getByLabel('Expiry year').fill(FUTURE_YEAR);
  await form.getByLabel('CVV').fill('918');
  await form.getByLabel('Cardholder first name').fill('Jane');
  await form.getByLabel('Cardholder last name').fill('Doe');
  await form.getByRole('button', { name: /^Charge/ }).click();
  const outcome = a.getByTestId('payment-outcome');
  await expect(outcome.getByRole('heading', { name: "Waiting for the customer's payment" })).toBeVisible();
  const m = /MD-\d{8}-[A-Z0-9]+/.exec(await outcome.innerText());
  expect(m, 'the reference on the waiting screen').not.toBeNull();
  ref = m![0];

  // The intent was committed in PostgreSQL before initialize, recorded as ann by the database itself.
  expect((await teamEvents(ref, 'intent'))[0]).toMatchObject({ actor: ANN.login });

  const prefix = `${sb.baseUrl}/pay/`;
  const findPay = () =>
    deskA!.browser
      .contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url().startsWith(prefix) && !p.isClosed());
  await expect.poll(() => findPay() !== undefined, { timeout: 20_000 }).toBe(true);
  const pay = findPay()!;
  await expect(pay.getByText('•••• 4242')).toBeVisible();
  await pay.getByRole('button', { name: /^Pay / }).click();
  await expect(outcome.getByRole('heading', { name: 'Approved' })).toBeVisible({ timeout: 30_000 });

  // The sandbox's signed callback reached serve, which stored it as the receiver login.
  await expect.poll(async () => (await teamEvents(ref, 'callback')).length, { timeout: 20_000 }).toBe(1);
  expect((await teamEvents(ref, 'callback'))[0]).toMatchObject({ status: 'COMPLETED', actor: RECEIVER.login });

  // Desktop B (bob) sees the charge, approved, with the redirect A captured and serve's callback agreeing.
  await expect(async () => {
    await reopen(b, 'Collections');
    await expect(collectionsRow(b, ref)).toContainText('Approved', { timeout: 1_000 });
    await expect(collectionsRow(b, ref).getByText('Agree: redirect Approved, callback Approved')).toBeVisible({
      timeout: 1_000,
    });
  }).toPass({ timeout: 20_000 });
  await docsScreenshot(b, 'team-desk-b-collections');
  // ... and so does A, whose desk has no receiver of its own: the callback came through the team.
  await expect(async () => {
    await reopen(a, 'Collections');
    await expect(collectionsRow(a, ref).getByText('Agree: redirect Approved, callback Approved')).toBeVisible({
      timeout: 1_000,
    });
  }).toPass({ timeout: 20_000 });
});

test('each desk offers only what its role may do, and says who can', async () => {
  const a = deskA!.page; // ann, support
  const b = deskB!.page; // bob, back office
  const nav = (p: Page) => p.getByRole('navigation', { name: 'Main' });

  // Taking payments is support's: bob is told so instead of being given a form the database would refuse.
  await nav(b).getByRole('link', { name: 'Take payment' }).click();
  await expect(b.getByRole('heading', { level: 1, name: 'Take payment' })).toBeVisible();
  await expect(b.getByText('Taking payments is for support and admins.')).toBeVisible();
  await expect(b.getByRole('form', { name: 'Take payment' })).toHaveCount(0);
  await b.screenshot({ path: path.join(os.tmpdir(), 'md-e2e-back-office-take-payment.png') });

  // Importing callbacks is back office's: offered to bob, not to ann.
  await nav(b).getByRole('link', { name: 'Collections' }).click();
  await expect(b.getByRole('button', { name: 'Import callbacks…' })).toBeVisible();
  await nav(a).getByRole('link', { name: 'Collections' }).click();
  await expect(a.getByRole('heading', { level: 1, name: 'Collections' })).toBeVisible();
  await expect(collectionsRow(a, ref)).toBeVisible();
  await expect(a.getByRole('button', { name: 'Import callbacks…' })).toHaveCount(0);

  // Operators are an admin's to manage: neither desk gets the form, both are told who can.
  for (const p of [a, b]) {
    await nav(p).getByRole('link', { name: 'Settings' }).click();
    await expect(p.getByText('Adding, disabling and re-roling operators is for admins.')).toBeVisible();
    await expect(p.getByRole('form', { name: 'Add operator' })).toHaveCount(0);
  }

  // Exports read the desk's own copy, which every role may read: offered to both.
  for (const p of [a, b]) {
    await nav(p).getByRole('link', { name: 'Reports' }).click();
    await expect(p.getByRole('button', { name: /^Export/ }).first()).toBeVisible();
  }

  // An admin is offered everything.
  const dataC = await connectDesk(ADMIN.login);
  const deskC = await startApp({ dataDir: dataC, env: KEYCHAIN });
  try {
    const c = deskC.page;
    await expect(c.getByRole('heading', { level: 1, name: `Sign in as ${ADMIN.login}` })).toBeVisible({
      timeout: 30_000,
    });
    await signInAtLockScreen(c, ADMIN.login, ADMIN.password);
    await nav(c).getByRole('link', { name: 'Take payment' }).click();
    await expect(c.getByRole('form', { name: 'Take payment' })).toBeVisible();
    await nav(c).getByRole('link', { name: 'Collections' }).click();
    await expect(c.getByRole('button', { name: 'Import callbacks…' })).toBeVisible();
    await nav(c).getByRole('link', { name: 'Settings' }).click();
    await expect(c.getByRole('form', { name: 'Add operator' })).toBeVisible();
    await expect(c.getByTestId('who-may')).toHaveCount(0);
  } finally {
    expect(await deskC.stop()).toBe(0);
  }
});

test('a callback the sandbox delivers twice is stored once', async () => {
  expect(ref).not.toBe('');
  const delivered = () =>
    sb.controls.callbackLog().filter((e) => e.merchant_reference === ref && e.status === 'delivered').length;
  expect(delivered()).toBe(1);
  sb.controls.resendCallback(ref);
  await expect.poll(delivered, { timeout: 20_000 }).toBe(2);
  expect(await teamEvents(ref, 'callback')).toHaveLength(1);
});

test('a final-status change is an exception on both desks; B resolves it and A sees the resolution', async () => {
  expect(ref).not.toBe('');
  const a = deskA!.page;
  const b = deskB!.page;
  await sb.controls.flip(ref, 'FAILED');
  await expect.poll(async () => (await teamEvents(ref, 'callback')).length, { timeout: 20_000 }).toBe(2);

  for (const page of [a, b]) {
    await expect(async () => {
      await reopen(page, 'Reconciliation');
      await expect(exceptionsRow(page, ref)).toContainText('Changed after final', { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
  }

  // Ann (support) is not offered the resolution; the detail says who can.
  await exceptionsRow(a, ref).click();
  await expect(a.getByText('Resolving exceptions is for back office and admins.')).toBeVisible();
  await expect(a.getByRole('form', { name: `Resolve ${ref}` })).toHaveCount(0);
  await a.screenshot({ path: path.join(os.tmpdir(), 'md-e2e-support-exception.png') });

  // Bob resolves it on desktop B, with a note.
  await exceptionsRow(b, ref).click();
  const note = 'Checked with the service: the issuer reversed it; customer told.';
  const resolveForm = b.getByRole('form', { name: `Resolve ${ref}` });
  await resolveForm.getByLabel('Resolution note').fill(note);
  await resolveForm.getByRole('button', { name: 'Resolve with note' }).click();
  await expect(b.getByRole('status').filter({ hasText: 'Resolved' })).toContainText(note);
  // Bringing the detail into view scrolled the document itself as well as the screen's own pane.
  await b.evaluate(() => window.scrollTo(0, 0));
  await docsScreenshot(b, 'team-desk-b-resolved');
  // Recorded in PostgreSQL as bob, set by the database from his login.
  expect(await teamEvents(ref, 'manual')).toEqual([expect.objectContaining({ actor: BOB.login })]);

  // Desktop A: the exception is gone and its audit shows bob's resolution with the note.
  await expect(async () => {
    await reopen(a, 'Reconciliation');
    await expect(exceptionsRow(a, ref)).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await a.getByRole('tab', { name: 'Audit' }).click();
  await a.getByRole('form', { name: 'Audit filters' }).getByLabel('Reference').fill(ref);
  await expect(a.getByRole('table', { name: 'Audit events' }).getByRole('row', { name: /resolution/ })).toContainText(
    note,
  );
  await docsScreenshot(a, 'team-desk-a-audit');
});

test('an admin disables ann: her desk locks, says why it locked, and her sign-in says an admin disabled the login', async () => {
  const a = deskA!.page;
  const off = await cli(
    [
      '--data-dir',
      path.join(dir, 'cli'),
      'team',
      'operators',
      'disable',
      '--database',
      team.urlAs(ADMIN.login),
      '--login',
      ANN.login,
    ],
    { stdin: `${ADMIN.password}\n` },
  );
  expectOk(off, 'team operators disable ann');
  // The desk locks to its sign-in, and the notice that ended the session is on the lock screen, not behind it.
  await expect(a.getByRole('heading', { level: 1, name: `Sign in as ${ANN.login}` })).toBeVisible({ timeout: 30_000 });
  await expect(
    a.getByRole('main').getByText(`An admin disabled the login ${ANN.login}: this desk signed out`),
  ).toBeVisible();
  await a.getByLabel('Password', { exact: true }).fill(ANN.password);
  await a.getByRole('button', { name: 'Sign in' }).click();
  await expect(a.getByRole('alert')).toHaveText(
    `An admin disabled the login ${ANN.login}: it cannot sign in until an admin enables it again.`,
  );
  await a.screenshot({ path: path.join(os.tmpdir(), 'md-e2e-disabled-sign-in.png') });
});
