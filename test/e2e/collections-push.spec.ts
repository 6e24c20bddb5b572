// Issue 23 in the window: the Collections screen reads its list again only for a change to a collection
// it shows (or may show), once for "many changed", and not while the person is typing in a field. The
// pushes are given to the window as main's push gives them (the shell's __deskEmit, what each push calls),
// and the screen's reads are counted at the bridge to main.
import fs from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { dataPaths } from '../../main/settings/paths.js';
import { newDataDir, openScreen, startApp, type RunningApp } from './support/app.js';

let app: RunningApp | undefined;

test.afterEach(async () => {
  if (app) {
    expect(await app.stop()).toBe(0);
    fs.rmSync(app.dataDir, { recursive: true, force: true });
  }
  app = undefined;
});

/** `n` collections, oldest first (so ids rise with creation time); returns [id, reference] oldest and newest. */
function seed(dataDir: string, n: number) {
  const db = openDatabase(dataPaths(dataDir).db);
  const now = Date.now();
  const insert = db.prepare(
    `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, customer_name, customer_email,
       charge_customer, allow_final_status_change, operator, provider_code, redirect_url, card_brand, card_last4, status,
       status_changed_at, internal_reference, status_message, flags, final_changes)
     VALUES (?, ?, 150000, 'UGX', 'Phone order', 'Amina Nakato', NULL, 0, 1, 'seed', 'CARD_UGX',
       'https://merchant-desk.invalid/return', 'visa', '4242', 'PENDING', ?, ?, NULL, 0, 0)`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const created = now - (n - i) * 60_000;
      insert.run(`MD-PUSH-${String(i).padStart(4, '0')}`, created, created, `SBXPUSH${i}`);
    }
  })();
  const row = (order: 'ASC' | 'DESC') =>
    db
      .prepare(`SELECT id, merchant_reference AS reference FROM collections ORDER BY created_at ${order} LIMIT 1`)
      .get() as { id: number; reference: string };
  const ends = { oldest: row('ASC'), newest: row('DESC') };
  db.close();
  return ends;
}

/** Counts the screen's collections.list calls from now on (the bridge looks __deskInvoke up per call). */
async function countReads(page: Page): Promise<() => Promise<number>> {
  await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    const invoke = w.__deskInvoke as (c: string, r: unknown) => Promise<unknown>;
    w.__listReads = 0;
    w.__deskInvoke = (c: string, r: unknown) => {
      if (c === 'collections.list') w.__listReads = (w.__listReads as number) + 1;
      return invoke(c, r);
    };
  });
  return () => page.evaluate(() => (window as unknown as Record<string, number>).__listReads!);
}

const push = (page: Page, changed: { id: number; reference: string; status: string }[], many = false) =>
  page.evaluate(
    ([changed, many]) =>
      (window as unknown as { __deskEmit: (n: string, p: unknown) => void }).__deskEmit('collections.updated', {
        changed,
        many,
      }),
    [changed, many] as const,
  );

test('Collections re-reads for a change to a row it shows, once for "many", never for one it does not show, and not while the person types', async () => {
  const dataDir = newDataDir();
  const { oldest, newest } = seed(dataDir, 300);
  app = await startApp({ dataDir });
  const { page } = app;
  await openScreen(page, 'Collections');
  const count = page.getByTestId('collections-count');
  await expect(count).toContainText('300 collections (200 loaded)'); // the newest 200: not the oldest
  const reads = await countReads(page);

  // A change to the oldest collection (not loaded, not new, no filter it could join): nothing is read.
  await push(page, [{ ...oldest, status: 'COMPLETED' }]);
  await page.waitForTimeout(1_000);
  expect(await reads()).toBe(0);

  // A change to a row on screen: one read.
  await push(page, [{ ...newest, status: 'COMPLETED' }]);
  await expect.poll(reads).toBe(1);

  // "Many changed" (a big pulled batch): one read, however many such pushes arrive while it runs. The three
  // arrive together (one evaluate): sent one round trip apart, a read may end between two (the shell answers
  // a read as JSON text, quick enough), and each would rightly start a read of its own.
  await page.evaluate(() => {
    const emit = (window as unknown as { __deskEmit: (n: string, p: unknown) => void }).__deskEmit;
    for (let i = 0; i < 3; i++) emit('collections.updated', { changed: [], many: true });
  });
  await expect.poll(reads).toBeGreaterThanOrEqual(2);
  await page.waitForTimeout(1_000);
  expect(await reads()).toBeLessThanOrEqual(3); // one in flight, one after it

  // While the person types in a field, a change to a row on screen waits; it is read once they stop.
  const before = await reads();
  const search = page.getByRole('form', { name: 'Filter collections' }).getByLabel('Search');
  await search.focus();
  await search.press('Shift'); // keys that change no filter
  await push(page, [{ ...newest, status: 'FAILED' }]);
  for (let i = 0; i < 6; i++) {
    await page.waitForTimeout(200);
    await search.press('Shift');
  }
  expect(await reads()).toBe(before);
  await expect.poll(reads, { timeout: 5_000 }).toBe(before + 1);
});
