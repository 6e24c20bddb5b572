// Reports screen end to end: export the collections report and the balance report from the window, as
// CSV and as Excel workbooks (in the Chromium shell a file name only, saved in the data folder's
// exports/), check the files' content, see errors named on their fields (a path is refused), and cancel
// an export of a large history.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { openScreen, screenshotPath, startApp, type RunningApp } from './support/app.js';
import { bulkCollections, seeder, type Seeder } from './reconcile-seed.js';
import { readXlsx, recordsOf } from '../support/xlsx.js';
import { parseCsv } from '../support/csv.js';

let app: RunningApp | undefined;
let seed: Seeder | undefined;

test.afterEach(async () => {
  seed?.close();
  seed = undefined;
  await app?.stop();
  if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
  app = undefined;
});

function record(rows: string[][], key: string, value: string): Record<string, string> | undefined {
  const [header, ...body] = rows;
  const at = header!.indexOf(key);
  const r = body.find((x) => x[at] === value);
  return r ? Object.fromEntries(header!.map((h, i) => [h, r[i]!])) : undefined;
}

/** Where the form's file will be: the app's exports folder and the file name shown (the window names no path). */
async function savedPath(page: Page, form: string): Promise<string> {
  return path.join(
    app!.dataDir,
    'exports',
    await page.getByRole('form', { name: form }).getByLabel('File name').inputValue(),
  );
}

/** The app on the Reports screen with one approved KES 1,500.50 collection (its reference), whose customer is a formula. */
async function reportsWithOneCharge(description: string): Promise<{ page: Page; ref: string; dataDir: string }> {
  app = await startApp();
  const { page } = app;
  seed = seeder(app);
  const s = seed;
  const ref = await s.charge({ amount: '1500.50', currency: 'KES', description, customerName: '=1+2 Okello' });
  await app.sandbox!.complete(ref, 'approve');
  await expect.poll(() => s.statusOf(ref)).toBe('COMPLETED');
  await openScreen(page, 'Reports');
  return { page, ref, dataDir: app.dataDir };
}

test('collections CSV and balance report are exported with their content, quoting and BOM; errors name the field', async () => {
  const { page, ref, dataDir } = await reportsWithOneCharge('Mug "blue", large');
  const exportsDir = path.join(dataDir, 'exports');
  await expect(page.getByText("Files are saved in the app's exports folder")).toContainText(exportsDir);

  // Collections, no BOM, all dates.
  const coll = page.getByRole('form', { name: 'Collections report' });
  const collPath = await savedPath(page, 'Collections report');
  expect(collPath.startsWith(exportsDir + path.sep)).toBe(true);
  await coll.getByRole('button', { name: 'Export collections' }).click();
  const collResult = page.getByRole('status', { name: 'Collections report result' });
  await expect(collResult).toContainText('Exported 1 row.');
  await expect(collResult).toContainText(collPath);
  await expect(collResult).toContainText(`Open ${exportsDir} in your file manager`);
  const raw = fs.readFileSync(collPath);
  await expect(collResult).toContainText(raw.length < 1024 ? `${raw.length} bytes` : 'kB');
  expect(raw[0]).not.toBe(0xef); // no BOM unless asked
  const text = raw.toString('utf8');
  expect(text).toContain('"Mug ""blue"", large"'); // RFC 4180 quoting
  const rows = parseCsv(text);
  expect(rows[0]!.slice(0, 6)).toEqual([
    'merchant_reference',
    'internal_reference',
    'created_at',
    'amount',
    'currency',
    'status',
  ]);
  const r = record(rows, 'merchant_reference', ref)!;
  expect(r.amount).toBe('1500.50');
  expect(r.currency).toBe('KES');
  expect(r.status).toBe('COMPLETED');
  expect(r.callback_status).toBe('COMPLETED');
  expect(r.customer_name).toBe("'=1+2 Okello"); // formula guard
  expect(r.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  await page.screenshot({ path: screenshotPath('reports-collections-done'), fullPage: true });

  // Balance report for this month, with a BOM: the summary and the snapshots file.
  const bal = page.getByRole('form', { name: 'Balance report' });
  await bal.getByLabel('Add a byte-order mark (for Excel)').check();
  const balPath = await savedPath(page, 'Balance report');
  await bal.getByRole('button', { name: 'Export balance report' }).click();
  const balResult = page.getByRole('status', { name: 'Balance report result' });
  await expect(balResult).toContainText('Exported');
  const snapPath = balPath.replace(/\.csv$/, '-snapshots.csv');
  await expect(balResult).toContainText(balPath);
  await expect(balResult).toContainText(snapPath);
  const summary = fs.readFileSync(balPath);
  expect([...summary.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const srows = parseCsv(summary.subarray(3).toString('utf8'));
  expect(srows[0]!.slice(0, 3)).toEqual(['currency', 'wallet_type', 'balance']);
  const ugx = srows.find((x) => x[0] === 'UGX' && x[1] === 'MERCHANT_COLLECTION');
  expect(ugx, 'a UGX collection wallet row').toBeDefined();
  expect(ugx!.slice(3, 5).every((v) => /^-?\d+$/.test(v))).toBe(true); // UGX: no decimals
  const snaps = parseCsv(fs.readFileSync(snapPath, 'utf8').replace(/^\uFEFF/, ''));
  expect(snaps[0]!.slice(0, 3)).toEqual(['observed_at', 'currency', 'wallet_type']);
  expect(snaps.length).toBeGreaterThan(1);
  await page.screenshot({ path: screenshotPath('reports-balance-done'), fullPage: true });

  // Errors, each on its field; nothing written.
  const saveTo = coll.getByLabel('File name');
  await saveTo.fill('');
  await coll.getByRole('button', { name: 'Export collections' }).click();
  await expect(coll.getByText('Enter a file name ending in .csv.')).toBeVisible();
  await expect(saveTo).toHaveAttribute('aria-invalid', 'true');
  for (const notAName of ['../report.csv', path.join(dataDir, 'report.csv')]) {
    await saveTo.fill(notAName);
    await coll.getByRole('button', { name: 'Export collections' }).click();
    await expect(coll.getByText('must be a plain file name')).toBeVisible();
  }
  await saveTo.fill(path.basename(collPath));
  await coll.getByRole('button', { name: 'Export collections' }).click();
  await expect(coll.getByText('already exists in')).toBeVisible();
  await bal.getByLabel('From').fill('2026-03-10');
  await bal.getByLabel('To', { exact: true }).fill('2026-03-01');
  await bal.getByRole('button', { name: 'Export balance report' }).click();
  await expect(bal.getByText('The last day must be on or after the first day.')).toBeVisible();
  await page.screenshot({ path: screenshotPath('reports-errors'), fullPage: true });
  expect(fs.readdirSync(exportsDir).sort()).toEqual(
    [path.basename(balPath), path.basename(collPath), path.basename(snapPath)].sort(),
  );
});

test('an export of a large history shows progress and can be cancelled; the partial file is removed', async () => {
  app = await startApp();
  const { page } = app;
  seed = seeder(app);
  bulkCollections(seed.db, 400_000);
  await openScreen(page, 'Reports');
  const coll = page.getByRole('form', { name: 'Collections report' });
  const out = await savedPath(page, 'Collections report');
  await coll.getByRole('button', { name: 'Export collections' }).click();
  const bar = coll.getByRole('progressbar');
  await expect(bar).toBeVisible();
  await expect(coll.getByRole('button', { name: 'Export collections' })).toBeDisabled();
  await page.screenshot({ path: screenshotPath('reports-export-running'), fullPage: true });
  await coll.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByText('Export cancelled; the partial file was removed.')).toBeVisible();
  await expect(bar).toHaveCount(0);
  expect(fs.existsSync(out)).toBe(false);
  const dir = path.dirname(out);
  expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
  // It can run again afterwards (and the form is usable).
  await expect(coll.getByRole('button', { name: 'Export collections' })).toBeEnabled();
});

test('both reports as Excel workbooks: typed cells a spreadsheet opens as numbers and dates', async () => {
  const { page, ref, dataDir } = await reportsWithOneCharge('Mug blue large');

  const coll = page.getByRole('form', { name: 'Collections report' });
  const name = coll.getByLabel('File name');
  // A name typed for a CSV follows the format; the byte-order mark is for CSV only.
  await name.fill('june.csv');
  await coll.getByLabel('Format').selectOption({ label: 'Excel workbook (.xlsx)' });
  await expect(name).toHaveValue('june.xlsx');
  await expect(coll.getByLabel('Add a byte-order mark (for Excel)')).toHaveCount(0);
  await expect(coll.getByText('A name only, ending in .xlsx')).toBeVisible();
  await coll.getByRole('button', { name: 'Export collections' }).click();
  const result = page.getByRole('status', { name: 'Collections report result' });
  const collPath = path.join(dataDir, 'exports', 'june.xlsx');
  await expect(result).toContainText('Exported 1 row.');
  await expect(result).toContainText(collPath);
  await page.screenshot({ path: screenshotPath('reports-xlsx-done'), fullPage: true });
  const [sheet] = await readXlsx(collPath);
  const row = recordsOf(sheet!).records.find((r) => r.merchant_reference!.value === ref)!;
  expect(row.amount).toMatchObject({ type: 'number', value: 1500.5, numFmt: '#,##0.00' });
  expect(row.created_at).toMatchObject({ type: 'date', numFmt: 'yyyy-mm-dd hh:mm:ss' });
  expect(row.customer_name).toMatchObject({ type: 'text', value: "'=1+2 Okello" }); // the CSV's formula guard
  expect(row.open_exception!.type).toBe('boolean');

  // The balance report: one workbook, its summary and its snapshots on two sheets; a default name.
  const bal = page.getByRole('form', { name: 'Balance report' });
  await bal.getByLabel('Format').selectOption('xlsx');
  const balName = await bal.getByLabel('File name').inputValue();
  expect(balName).toMatch(/^balances-.*\.xlsx$/);
  await bal.getByRole('button', { name: 'Export balance report' }).click();
  const balResult = page.getByRole('status', { name: 'Balance report result' });
  const balPath = path.join(dataDir, 'exports', balName);
  await expect(balResult).toContainText(balPath);
  await expect(balResult.getByRole('listitem')).toHaveCount(1);
  const sheets = await readXlsx(balPath);
  expect(sheets.map((x) => x.name)).toEqual(['Summary', 'Snapshots']);
  const ugx = recordsOf(sheets[0]!).records.find((r) => r.currency!.value === 'UGX')!;
  expect(ugx.opening).toMatchObject({ type: 'number', numFmt: '#,##0' }); // UGX: no decimals
  expect(recordsOf(sheets[1]!).records[0]!.observed_at!.type).toBe('date');
  await page.screenshot({ path: screenshotPath('reports-xlsx-balance-done'), fullPage: true });
});
