// Reconciliation screen end to end: real collections through the back end and the embedded sandbox
// (approve, final status flip, a callback with the wrong amount, a callback for an unknown reference),
// then the queue, the side-by-side detail, resolution with a required note, the audit and the orphans.
import fs from 'node:fs';
import { test, expect } from '@playwright/test';
import { getCollection } from '../../main/collections/query.js';
import { docsScreenshot, openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';
import { expectAccessible } from './support/a11y.js';
import { bulkCollections, callbackMode, flip, seeder, type Seeder } from './reconcile-seed.js';

let app: RunningApp | undefined;
let seed: Seeder | undefined;

test.afterEach(async () => {
  seed?.close();
  seed = undefined;
  await app?.stop();
  if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
  app = undefined;
});

test('exceptions from real collections are listed, compared side by side, resolved with a required note and audited', async () => {
  app = await startApp();
  const { page } = app;
  const sb = app.sandbox!;
  seed = seeder(app);
  const s = seed;

  // A: approved, then the service flips it to FAILED (a final status change with a second callback).
  const refA = await s.charge({ amount: '25000', currency: 'UGX', description: 'Mug order, blue' });
  await sb.complete(refA, 'approve');
  await expect.poll(() => s.statusOf(refA)).toBe('COMPLETED');
  await flip(app, refA, 'FAILED');
  await expect.poll(() => s.statusOf(refA)).toBe('FAILED');
  // B: approved, every source agrees.
  const refB = await s.charge({ amount: '150.00', currency: 'KES', description: 'Tea set for two' });
  await sb.complete(refB, 'approve');
  await expect.poll(() => s.statusOf(refB)).toBe('COMPLETED');
  // C: pending; a signed callback says COMPLETED for 45,000 where 40,000 was asked.
  const refC = await s.charge({ amount: '40000', currency: 'UGX', description: 'Lamp, brass finish' });
  const internalC = getCollection(s.db, refC)!.collection.internalReference!;
  expect(
    await s.postCallback({
      reference: refC,
      internalReference: internalC,
      status: 'COMPLETED',
      amount: 45000,
      currency: 'UGX',
    }),
  ).toBe(200);
  // D: the customer's redirect says FAILED (declined), then a signed callback says COMPLETED.
  await callbackMode(app, 'hold');
  const refD = await s.charge({ amount: '30000', currency: 'UGX', description: 'Rug, hand woven' });
  const { redirect_url: redirectD } = (await sb.complete(refD, 'decline')) as { redirect_url: string };
  await s.redirect(redirectD);
  await callbackMode(app, 'normal');
  const internalD = getCollection(s.db, refD)!.collection.internalReference!;
  expect(
    await s.postCallback({
      reference: refD,
      internalReference: internalD,
      status: 'COMPLETED',
      amount: 30000,
      currency: 'UGX',
    }),
  ).toBe(200);
  // A callback for a reference this desk never made.
  expect(
    await s.postCallback({ reference: 'GHOST-REF-000123', status: 'COMPLETED', amount: 5000, currency: 'UGX' }),
  ).toBe(200);

  await openScreen(page, 'Reconciliation');
  const open = page.getByRole('list', { name: 'Open exceptions by kind' });
  await expect(open.getByRole('listitem').filter({ hasText: 'Changed after final' })).toContainText('1');
  await expect(open.getByRole('listitem').filter({ hasText: 'Amount mismatch' })).toContainText('1');
  await expect(open.getByRole('listitem').filter({ hasText: 'Callback for unknown reference' })).toContainText('1');
  await expect(open.getByRole('listitem').filter({ hasText: 'Redirect and callback disagree' })).toContainText('1');
  await expect(page.getByTestId('open-exceptions')).toHaveText('3');
  // The headline counts everything that needs a person, and says what it includes.
  await expect(
    page.getByRole('heading', { name: 'Needs attention: 4 (3 exceptions, 1 unknown-reference callback)' }),
  ).toBeVisible();
  await expect(page.getByRole('figure', { name: /Collections by outcome: .*Matched: 1/ })).toBeVisible();

  const table = page.getByRole('table', { name: 'Exceptions' });
  await expect(table.getByRole('row', { name: new RegExp(refA) })).toContainText('Changed after final');
  // Statuses in the user's words, never the service's codes.
  await expect(table.getByRole('row', { name: new RegExp(refA) })).toContainText('Declined');
  await expect(table).not.toContainText('FAILED');
  await expect(table.getByRole('row', { name: new RegExp(refC) })).toContainText('Amount mismatch');
  await expect(table.getByRole('row', { name: new RegExp(refB) })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('reconcile-queue'), fullPage: true });
  await expectAccessible(page, 'Reconciliation: exceptions queue');
  await docsScreenshot(page, 'reconciliation');

  // D side by side: the redirect (verified) and the callback disagree.
  await table.getByRole('row', { name: new RegExp(refD) }).click();
  const sourcesD = page.getByRole('table', { name: 'Sources side by side' });
  const statusD = sourcesD.getByRole('row', { name: /^Status/ }).getByRole('cell');
  await expect(statusD.nth(2)).toHaveText('Declined'); // Redirect column
  await expect(statusD.nth(2)).toHaveClass(/disagree/);
  await expect(statusD.nth(3)).toHaveText('Approved'); // Callback column
  await expect(
    sourcesD
      .getByRole('row', { name: /^Signature/ })
      .getByRole('cell')
      .nth(2),
  ).toHaveText('verified');
  // The side-by-side table scrolls sideways: its region is reachable with Tab.
  await expect(page.getByRole('region', { name: 'Sources side by side (scrollable)' })).toHaveAttribute(
    'tabindex',
    '0',
  );
  await page.screenshot({ path: screenshotPath('reconcile-detail-disagree'), fullPage: true });
  await expectAccessible(page, 'Reconciliation: exception detail');
  await page.getByRole('button', { name: 'Close detail' }).click();

  // Filter by kind: only A is left.
  await page.getByRole('form', { name: 'Exception filters' }).getByLabel('Kind').selectOption('final_status_changed');
  await expect(table.getByRole('row', { name: new RegExp(refC) })).toHaveCount(0);
  await expect(table.getByRole('row', { name: new RegExp(refA) })).toBeVisible();
  // ... and by currency: KES has none.
  // The merchant's own currencies (from its collections and wallets), not a fixed list.
  await expect(
    page.getByRole('form', { name: 'Exception filters' }).getByLabel('Currency').getByRole('option'),
  ).toContainText(['All', 'KES', 'TZS', 'UGX', 'USD']);
  await page.getByRole('form', { name: 'Exception filters' }).getByLabel('Currency').selectOption('KES');
  await expect(page.getByText('No exceptions match these filters')).toBeVisible();
  await page.getByRole('form', { name: 'Exception filters' }).getByLabel('Currency').selectOption('');

  // Detail of A with the keyboard: every source side by side.
  await table.getByRole('row', { name: new RegExp(refA) }).focus();
  await page.keyboard.press('Enter');
  const sources = page.getByRole('table', { name: 'Sources side by side' });
  await expect(sources.getByRole('columnheader')).toContainText([
    '',
    'Intent',
    'Initiate',
    'Redirect',
    'Callback',
    'Import',
    'Manual',
  ]);
  const statusRow = sources.getByRole('row', { name: /^Status/ });
  await expect(statusRow).toContainText('Declined');
  await expect(statusRow).toContainText('Pending');
  await expectAccessible(page, 'Reconciliation: detail of a final-status change');
  await expect(sources.getByRole('row', { name: /^Signature/ })).toContainText('verified');

  // Resolution: the note is required.
  const form = page.getByRole('form', { name: `Resolve ${refA}` });
  const resolve = form.getByRole('button', { name: 'Resolve with note' });
  const note = form.getByLabel('Resolution note');
  await expect(resolve).toBeDisabled();
  await note.fill('   ');
  await expect(resolve).toBeDisabled();
  await note.blur();
  await expect(form.getByText('Resolution note is required')).toBeVisible();
  await expect(note).toHaveAttribute('aria-invalid', 'true');
  // Too short for the back end: its message lands on the note field.
  await note.fill('ok');
  await resolve.click();
  await expect(form.getByText('a note is required: say what was checked')).toBeVisible();
  await page.screenshot({ path: screenshotPath('reconcile-note-refused'), fullPage: true });
  const text = 'Checked with the service: the card issuer reversed it; customer told.';
  await note.fill(text);
  await resolve.click();
  await expect(page.getByRole('status').filter({ hasText: 'Resolved' })).toContainText(text);
  await expect(open.getByRole('listitem').filter({ hasText: 'Changed after final' })).toContainText('0');
  await expect(table.getByRole('row', { name: new RegExp(refA) })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('reconcile-resolved'), fullPage: true });

  // The audit lists the resolution (and the events before it).
  await page.getByRole('tab', { name: 'Audit' }).click();
  await page.getByRole('form', { name: 'Audit filters' }).getByLabel('Reference').fill(refA);
  const audit = page.getByRole('table', { name: 'Audit events' });
  await expect(audit.getByRole('row', { name: /resolution/ })).toContainText(text);
  await expect(audit.getByRole('row', { name: /callback/i })).toHaveCount(2);
  await page.getByRole('form', { name: 'Audit filters' }).getByLabel('Event kind').selectOption('resolution');
  await expect(audit.getByRole('row')).toHaveCount(2); // header + the one resolution
  await expect(audit).not.toContainText('COMPLETED');
  await page.screenshot({ path: screenshotPath('reconcile-audit'), fullPage: true });
  await expectAccessible(page, 'Reconciliation: audit');

  // The unknown reference: listed, resolved with a note.
  await page.getByRole('tab', { name: /Unknown references/ }).click();
  const orphans = page.getByRole('table', { name: 'Orphan callbacks' });
  const ghost = orphans.getByRole('row', { name: /GHOST-REF-000123/ });
  await expect(ghost).toContainText('Open');
  await expect(ghost).toContainText('Approved');
  await expectAccessible(page, 'Reconciliation: unknown references');
  await ghost.click();
  const oform = page.getByRole('form', { name: 'Resolve callback GHOST-REF-000123' });
  await expect(oform.getByRole('button', { name: 'Resolve with note' })).toBeDisabled();
  await oform.getByLabel('Resolution note').fill('Test delivery from the service support desk; no money moved.');
  await oform.getByRole('button', { name: 'Resolve with note' }).click();
  await expect(page.getByText('No callbacks for unknown references')).toBeVisible();
  await expect(open.getByRole('listitem').filter({ hasText: 'Callback for unknown reference' })).toContainText('0');

  // Balance movement: poll again now that money moved. KES (B, credited by the sandbox) is explained;
  // UGX is not: C's, D's and the unknown reference's callbacks said COMPLETED (45,000 + 30,000 + 5,000)
  // but the service's balance never moved.
  await openScreen(page, 'Balances');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByRole('button', { name: 'Refresh' })).toBeEnabled();
  await openScreen(page, 'Reconciliation');
  await page.getByRole('tab', { name: 'Balance movement' }).click();
  const totals = page.getByRole('table', { name: 'Movement totals per currency' });
  await expect(totals.getByRole('row', { name: /^UGX/ })).toHaveClass(/unexplained/);
  await expect(totals.getByRole('row', { name: /^UGX/ })).toContainText('-80,000');
  await expect(totals.getByRole('row', { name: /^KES/ })).not.toHaveClass(/unexplained/);
  await expect(totals.getByRole('row', { name: /^KES/ })).toContainText('144.75');
  await expect(
    page.getByRole('table', { name: 'Movement per interval' }).getByRole('row', { name: /^UGX/ }),
  ).toHaveClass(/unexplained/);
  await page.screenshot({ path: screenshotPath('reconcile-movement'), fullPage: true });
  await expectAccessible(page, 'Reconciliation: balance movement');

  // Full run: progress, then the result, same answer as incremental. The queue's filters stay.
  await page.getByRole('tab', { name: /Exceptions/ }).click();
  const filters = page.getByRole('form', { name: 'Exception filters' });
  await filters.getByLabel('Search').fill(refA);
  await filters.getByLabel('Show resolved').check();
  await expect(table.getByRole('row', { name: new RegExp(refA) })).toBeVisible(); // resolved, shown
  await page.getByRole('button', { name: 'Run full reconciliation' }).click();
  await expect(page.getByText(/Reconciled 4 collections/)).toBeVisible();
  await expect(page.getByTestId('open-exceptions')).toHaveText('2');
  await expect(filters.getByLabel('Search')).toHaveValue(refA);
  await expect(filters.getByLabel('Show resolved')).toBeChecked();
  await expect(table.getByRole('row', { name: new RegExp(refA) })).toBeVisible();
  // ... and survive a reload of the window.
  await page.reload();
  await expect(page.getByRole('form', { name: 'Exception filters' }).getByLabel('Search')).toHaveValue(refA);
  await expect(page.getByRole('form', { name: 'Exception filters' }).getByLabel('Show resolved')).toBeChecked();
});

test('a full reconciliation of a large history shows progress and can be cancelled; tabs work from the keyboard', async () => {
  app = await startApp();
  const { page } = app;
  seed = seeder(app);
  bulkCollections(seed.db, 400_000);
  await openScreen(page, 'Reconciliation');
  await expect(page.getByTestId('open-exceptions')).toBeVisible();

  await page.getByRole('button', { name: 'Run full reconciliation' }).click();
  const bar = page.getByRole('progressbar', { name: 'Reconciling' });
  await expect(bar).toHaveAttribute('aria-valuemax', '400000');
  await expect(page.getByRole('button', { name: 'Run full reconciliation' })).toBeDisabled();
  await page.screenshot({ path: screenshotPath('reconcile-full-run'), fullPage: true });
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByText('Full reconciliation cancelled; results already computed are kept.')).toBeVisible();
  await expect(bar).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Run full reconciliation' })).toBeEnabled();

  // Tabs: arrow keys move the selection and focus.
  const tabs = page.getByRole('tablist', { name: 'Reconciliation views' });
  await tabs.getByRole('tab', { name: /^Exceptions/ }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(tabs.getByRole('tab', { name: /^Unknown references/ })).toHaveAttribute('aria-selected', 'true');
  await expect(tabs.getByRole('tab', { name: /^Unknown references/ })).toBeFocused();
  await page.keyboard.press('End');
  await expect(tabs.getByRole('tab', { name: 'Refused callbacks' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('heading', { name: 'Refused callbacks' })).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(tabs.getByRole('tab', { name: 'Balance movement' })).toHaveAttribute('aria-selected', 'true');
  await expect(tabs.getByRole('tab', { name: 'Balance movement' })).toBeFocused();
  await expect(page.getByRole('heading', { name: 'Balance movement per polling interval' })).toBeVisible();
});

test('the exceptions queue pages through every row as it scrolls (no 1,000-row ceiling)', async () => {
  app = await startApp();
  const { page } = app;
  seed = seeder(app);
  // 1,200 collections pending for two days: each a stale-pending exception after a full run.
  const twoDays = 2 * 86_400_000;
  seed.db
    .prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 1200)
       INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, operator, redirect_url, status, status_changed_at)
       SELECT 'OLD-' || printf('%06d', i), ? - i * 1000, 1000 + i, 'UGX', 'Old pending order ' || i, 'bulk', 'https://merchant-desk.invalid/return', 'PENDING', ? - i * 1000 FROM seq`,
    )
    .run(Date.now() - twoDays, Date.now() - twoDays);
  // Each was accepted by the service (initialize answered), then nothing more was heard.
  seed.db
    .prepare(
      `INSERT INTO collection_events (collection_id, merchant_reference, source, kind, status, received_at, signature)
       SELECT id, merchant_reference, 'initiate', 'initialize_accepted', 'PENDING', created_at + 500, 'not_applicable' FROM collections WHERE merchant_reference LIKE 'OLD-%'`,
    )
    .run();
  await openScreen(page, 'Reconciliation');
  await page.getByRole('button', { name: 'Run full reconciliation' }).click();
  await expect(page.getByText(/Reconciled 1,200 collections/)).toBeVisible({ timeout: 60_000 });
  const count = page.getByTestId('exceptions-count');
  await expect(count).toContainText('1,200 exceptions (200 loaded; scroll for more)');
  const region = page.getByRole('region', { name: 'Exceptions (scrollable)' });
  for (const loaded of ['400', '600', '800', '1,000']) {
    await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect(count).toContainText(`(${loaded} loaded`);
  }
  await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  // Past the old ceiling: the oldest (last) row is reachable.
  await expect(count).toContainText('1,200 exceptions.');
  await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(
    page.getByRole('table', { name: 'Exceptions' }).getByRole('row', { name: /OLD-001200\b/ }),
  ).toBeVisible();
});
