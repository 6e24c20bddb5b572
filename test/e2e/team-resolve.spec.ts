// One decision per exception, and screens that follow the team, through the screens (issue 28,
// problems 3 and 4): a PostgreSQL server of this spec's own, `team init` and `team operators add` (the
// CLI), `merchant-desk serve` receiving signed callbacks, and three back-office desks (the Chromium shell
// app, each on its own data folder): kofi, amina and dina. kofi and amina press "Resolve with note" on
// the same exception at about the same moment: the team record keeps one resolution, the other desk is
// told who resolved it, when and with what note, and both then show that one. dina's detail, open all
// along, follows: it says who resolved it and no longer offers Resolve. When amina's press is slower to
// reach her desk than kofi's resolution is to reach her screen, her form is gone before her answer comes:
// she is still told hers was not recorded (a CI run lost that refusal). A signed callback for a
// reference nobody charged, posted to serve, appears in dina's open "Unknown references" tab.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { test, expect, type Page } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { PRIVATE_KEY_FILE } from '../../sandbox/keys.js';
import { Signer } from '../../sandbox/signing.js';
import { recordIntent } from '../../main/team/record.js';
import { startServe, type Serve } from '../serve/harness.js';
import { callbackBody } from '../callbacks/support.js';
import { startApp, type RunningApp } from './support/app.js';
import { connectTeamDesk, initTeam, signInAtLockScreen, startTeamServer, type TeamServer } from './support/team.js';

test.describe.configure({ mode: 'serial', timeout: 300_000 });

const ADMIN = { login: 'boss', password: 'boss password 1234' };
const ANN = { login: 'ann', role: 'support', name: 'Ann Support', password: 'ann password 1234' };
const KOFI = { login: 'kofi', role: 'back_office', name: 'Kofi', password: 'kofi password 1234' };
const AMINA = { login: 'amina', role: 'back_office', name: 'Amina', password: 'amina password 1234' };
const DINA = { login: 'dina', role: 'back_office', name: 'Dina', password: 'dina password 1234' };
const RECEIVER = { login: 'serve_rx', role: 'receiver', name: 'serve', password: 'serve password 1234' };
const KEYCHAIN = { MERCHANT_DESK_KEYCHAIN_SERVICE: `merchant-desk-e2e-resolve-${process.pid}-${Date.now()}` };
const SHOTS = path.join(os.tmpdir(), 'md-e2e-team-resolve');

let dir: string;
let team: TeamServer;
let sb: Sandbox;
let serve: Serve | undefined;
const desks = new Map<string, RunningApp>();

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-resolve-'));
  fs.mkdirSync(SHOTS, { recursive: true });
  [team, sb] = await Promise.all([startTeamServer(), startSandbox({ stateDir: path.join(dir, 'sandbox') })]);
});

test.afterAll(async () => {
  const codes = await Promise.all([...desks.values()].map((d) => d.stop()));
  let serveCode: number | null | undefined;
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    serveCode = await serve.exited;
  }
  await sb?.close();
  await team?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  for (const code of codes) expect(code, 'a desk exit code').toBe(0);
  if (serveCode !== undefined) expect(serveCode).toBe(0);
});

/** A data folder whose team profile is connected through the CLI, as a user would, for `login`. */
const connectDesk = (login: string) => connectTeamDesk({ dir, sandbox: sb, team, login, env: KEYCHAIN });

/** A callback as the service sends it, signed (HMAC and RSA) with the sandbox's keys, posted to serve. */
async function postCallback(reference: string, status: string, amount = 15000): Promise<void> {
  const signer = new Signer(
    sb.signingKey,
    crypto.createPrivateKey(fs.readFileSync(path.join(dir, 'sandbox', PRIVATE_KEY_FILE), 'utf8')),
  );
  const body = callbackBody(reference, status, { request_amount: amount, transaction_amount: amount });
  const sig = signer.sign({ event: body.event, ...body.payload });
  const r = await fetch(`${serve!.base}/callbacks/collections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'hmac-signature': sig.hmac, 'rsa-signature': sig.rsa },
    body: JSON.stringify(body),
  });
  expect(r.status, await r.text()).toBe(200);
}

/**
 * ann's charge of `reference`, recorded in the team record as her desk records one; the service then
 * answers twice (COMPLETED, then FAILED): a final-status change, an exception on every desk.
 */
async function anException(reference: string): Promise<void> {
  const ann = new pg.Pool({
    host: team.server.host,
    port: team.server.port,
    database: team.database,
    user: ANN.login,
    password: ANN.password,
    max: 1,
  });
  try {
    await recordIntent(ann, {
      merchantReference: reference,
      createdAt: Date.now(),
      amountMinor: 15000,
      currency: 'UGX',
      description: 'Phone order, two answers',
      customerName: 'Amina N',
      customerEmail: null,
      chargeCustomer: false,
      allowFinalStatusChange: true,
      operator: ANN.login,
      providerCode: 'CARD_UGX',
      redirectUrl: 'https://merchant-desk.invalid/return',
      cardBrand: 'visa',
      cardLast4: '4242',
    });
  } finally {
    await ann.end();
  }
  await postCallback(reference, 'COMPLETED');
  await postCallback(reference, 'FAILED');
}

/**
 * Holds the page's resolve calls on their way from its window to its desk's main process (a delay
 * injected in the Chromium shell's bridge, nothing else changed) until the returned function lets them go.
 */
async function holdResolveCalls(p: Page): Promise<() => Promise<void>> {
  await p.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    const real = w.__deskInvoke as (channel: string, request: unknown) => Promise<unknown>;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const held = (channel: string, request: unknown) =>
      channel === 'reconcile.resolve'
        ? gate.then(() => Reflect.apply(real, window, [channel, request]))
        : Reflect.apply(real, window, [channel, request]);
    Object.defineProperty(window, '__deskInvoke', { value: held, configurable: true, writable: true });
    w.__deskLetGo = release;
  });
  return () => p.evaluate(() => (window as unknown as { __deskLetGo: () => void }).__deskLetGo());
}

async function teamEvents(ref: string, source: string) {
  const r = await team.owner.query<{ actor: string; note: string | null; recorded_at: Date }>(
    'SELECT actor, note, recorded_at FROM team.events WHERE merchant_reference = $1 AND source = $2 ORDER BY seq',
    [ref, source],
  );
  return r.rows;
}

const nav = (p: Page) => p.getByRole('navigation', { name: 'Main' });
const exceptionsRow = (p: Page, ref: string) =>
  p.getByRole('table', { name: 'Exceptions' }).getByRole('row', { name: new RegExp(ref) });

let ref = '';

test('three back-office desks, serve and an exception every desk shows', async () => {
  await initTeam({ team, dir, admin: ADMIN, operators: [ANN, KOFI, AMINA, DINA, RECEIVER] });
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

  ref = `MD-RESOLVE-${Date.now().toString(36).toUpperCase()}`;
  await anException(ref);

  const started = await Promise.all(
    [KOFI, AMINA, DINA].map(async (op) => {
      const app = await startApp({ dataDir: await connectDesk(op.login), env: KEYCHAIN });
      desks.set(op.login, app);
      await app.page.setViewportSize({ width: 1280, height: 900 });
      await signInAtLockScreen(app.page, op.login, op.password);
      return app;
    }),
  );
  for (const { page } of started) {
    await nav(page).getByRole('link', { name: 'Reconciliation' }).click();
    // The queue follows the team: the exception appears without re-opening the screen.
    await expect(exceptionsRow(page, ref)).toContainText('Changed after final', { timeout: 30_000 });
    await exceptionsRow(page, ref).click();
    await expect(page.getByRole('form', { name: `Resolve ${ref}` })).toBeVisible();
  }
});

test('kofi and amina resolve it at the same moment: one stands, the other is told who, when and why, and dina follows', async () => {
  const [kofi, amina, dina] = [KOFI, AMINA, DINA].map((op) => desks.get(op.login)!.page) as [Page, Page, Page];
  const notes = {
    [KOFI.login]: 'Checked with the issuer: reversed, the customer was told.',
    [AMINA.login]: 'The customer paid the difference in cash at the shop.',
  };
  const forms = [kofi, amina].map((p) => p.getByRole('form', { name: `Resolve ${ref}` }));
  await forms[0]!.getByLabel('Resolution note').fill(notes[KOFI.login]!);
  await forms[1]!.getByLabel('Resolution note').fill(notes[AMINA.login]!);
  await Promise.all(forms.map((f) => f.getByRole('button', { name: 'Resolve with note' }).click()));

  // The desk that lost is told who resolved it, when, and their note; its own note is still there to read.
  const refusal = (p: Page) => p.getByRole('alert').filter({ hasText: 'Your resolution was not recorded' });
  await expect
    .poll(async () => (await refusal(kofi).count()) + (await refusal(amina).count()), { timeout: 10_000 })
    .toBe(1);
  const lost = (await refusal(kofi).count()) ? kofi : amina;
  const won = lost === kofi ? amina : kofi;
  const winner = won === kofi ? KOFI.login : AMINA.login;
  const note = notes[winner]!;
  // Exactly one resolution in the team record: the winner's.
  const stood = await teamEvents(ref, 'manual');
  expect(stood.map((e) => [e.actor, e.note])).toEqual([[winner, note]]);
  await expect(refusal(lost)).toContainText(`Your resolution was not recorded: ${winner} already resolved ${ref} at `);
  await expect(refusal(lost)).toContainText(note);
  await expect(refusal(lost)).toContainText(notes[lost === kofi ? KOFI.login : AMINA.login]!);
  await lost.screenshot({ path: path.join(SHOTS, 'refused.png'), fullPage: true });

  // Both desks then show the same resolver and note, and offer no Resolve.
  for (const p of [won, lost]) {
    const shown = p.getByRole('status').filter({ hasText: 'Resolved by' });
    await expect(shown).toContainText(`Resolved by ${winner} at `, { timeout: 10_000 });
    await expect(shown).toContainText(note);
    await expect(p.getByRole('form', { name: `Resolve ${ref}` })).toHaveCount(0);
  }

  // dina's detail, open since before, follows within seconds: who, when, the note, and no Resolve.
  const followed = dina.getByRole('status').filter({ hasText: 'Resolved by' });
  await expect(followed).toContainText(`Resolved by ${winner} at `, { timeout: 10_000 });
  await expect(followed).toContainText(note);
  await expect(dina.getByRole('form', { name: `Resolve ${ref}` })).toHaveCount(0);
  await dina.screenshot({ path: path.join(SHOTS, 'followed.png'), fullPage: true });
});

test("amina presses Resolve as kofi's resolution reaches her screen: her form goes, and she is still told hers was not recorded", async () => {
  const [kofi, amina] = [KOFI, AMINA].map((op) => desks.get(op.login)!.page) as [Page, Page];
  const late = `MD-LATE-${Date.now().toString(36).toUpperCase()}`;
  await anException(late);
  for (const p of [kofi, amina]) {
    await expect(exceptionsRow(p, late)).toContainText('Changed after final', { timeout: 30_000 });
    await exceptionsRow(p, late).click();
    await expect(p.getByRole('form', { name: `Resolve ${late}` })).toBeVisible();
  }
  const notes = { kofi: 'Reversed by the issuer on the phone.', amina: 'Refunded at the counter, receipt 0042.' };

  // amina presses first, but her call is slow to reach her desk's main process...
  const letGo = await holdResolveCalls(amina);
  const aminaForm = amina.getByRole('form', { name: `Resolve ${late}` });
  await aminaForm.getByLabel('Resolution note').fill(notes.amina);
  await aminaForm.getByRole('button', { name: 'Resolve with note' }).click();
  await expect(aminaForm.getByRole('button', { name: 'Resolving…' })).toBeVisible();
  // ...so kofi's resolution is recorded first, and reaches amina's screen while hers is on its way: the
  // exception is no longer open there, and her form goes.
  const kofiForm = kofi.getByRole('form', { name: `Resolve ${late}` });
  await kofiForm.getByLabel('Resolution note').fill(notes.kofi);
  await kofiForm.getByRole('button', { name: 'Resolve with note' }).click();
  const followed = amina.getByRole('status').filter({ hasText: 'Resolved by' });
  await expect(followed).toContainText(`Resolved by ${KOFI.login} at `, { timeout: 10_000 });
  await expect(aminaForm).toHaveCount(0);

  // Her answer then comes: she pressed Resolve, so she is told hers was not recorded, whose stands, and her note.
  await letGo();
  const refusal = amina.getByRole('alert').filter({ hasText: 'Your resolution was not recorded' });
  await expect(refusal).toContainText(`${KOFI.login} already resolved ${late} at `);
  await expect(refusal).toContainText(notes.kofi);
  await expect(refusal).toContainText(notes.amina);
  await expect(followed).toContainText(notes.kofi);
  const stood = await teamEvents(late, 'manual');
  expect(stood.map((e) => [e.actor, e.note])).toEqual([[KOFI.login, notes.kofi]]);
  await amina.screenshot({ path: path.join(SHOTS, 'refused-after-form-gone.png'), fullPage: true });
});

test("a callback for a reference nobody charged, posted to serve, appears in dina's open Unknown references tab", async () => {
  const dina = desks.get(DINA.login)!.page;
  await dina.getByRole('tab', { name: /Unknown references/ }).click();
  await expect(dina.getByRole('heading', { name: 'Callbacks for unknown references' })).toBeVisible();
  const unknown = `MD-NOBODY-${Date.now().toString(36).toUpperCase()}`;
  await postCallback(unknown, 'COMPLETED', 9900);
  const row = dina.getByRole('table', { name: 'Orphan callbacks' }).getByRole('row', { name: new RegExp(unknown) });
  await expect(row).toBeVisible({ timeout: 10_000 });
  await expect(dina.getByRole('tab', { name: /Unknown references/ })).toContainText('1');
  await dina.screenshot({ path: path.join(SHOTS, 'orphan.png'), fullPage: true });
});
