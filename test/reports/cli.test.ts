import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { dataPaths } from '../../main/settings/paths.js';
import { History } from '../reconcile/fixtures.js';
import { tempDir } from '../support/tmp.js';
import { readXlsx, recordsOf } from '../support/xlsx.js';

function cli(dataDir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'main/cli/main.ts', '--data-dir', dataDir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TZ: 'Africa/Kampala' },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function prepare(): { dataDir: string; refs: string[] } {
  const dataDir = tempDir('md-cli-');
  const db = openDatabase(dataPaths(dataDir).db);
  const h = new History(db, Date.UTC(2026, 10, 5, 7, 0, 0));
  const ok = h.collection({ currency: 'UGX', amountMinor: 50_000, description: '=2+3 cash order' });
  h.accepted(ok);
  h.callback(ok, 'COMPLETED');
  const bad = h.collection({ currency: 'KES', amountMinor: 12_345 });
  h.accepted(bad);
  h.redirect(bad, 'COMPLETED');
  h.callback(bad, 'FAILED');
  h.orphanCallback('NOT-OURS-123');
  h.poll(Date.UTC(2026, 10, 5, 8, 0, 0), [{ currency: 'KES', actualMinor: 100_000 }]);
  h.poll(Date.UTC(2026, 10, 5, 9, 0, 0), [{ currency: 'KES', actualMinor: 90_000 }]);
  const refs = db.prepare('SELECT merchant_reference FROM collections ORDER BY id').pluck().all() as string[];
  db.close();
  return { dataDir, refs };
}

describe('merchant-desk reconcile and export (end to end on a temp data folder)', () => {
  it('reconcile prints the summary and the open exceptions, as text and as JSON', () => {
    const { dataDir, refs } = prepare();
    const text = cli(dataDir, 'reconcile');
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/2 collections reconciled/);
    expect(text.stdout).toMatch(
      /1 open exception, 1 orphan callback \(redirect_callback_disagree 1, orphan_callback 1\)/,
    );
    expect(text.stdout).toContain(refs[1]!);
    expect(text.stdout).toContain('NOT-OURS-123');

    const json = cli(dataDir, 'reconcile', '--json', '--full');
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      summary: { byOutcome: Record<string, number> };
      exceptions: { merchantReference: string; amount: string; openKinds: string[] }[];
    };
    expect(parsed.summary.byOutcome).toMatchObject({ matched: 1, redirect_callback_disagree: 1 });
    expect(parsed.exceptions).toEqual([
      expect.objectContaining({
        merchantReference: refs[1],
        amount: '123.45',
        openKinds: ['redirect_callback_disagree'],
      }),
    ]);

    expect(cli(dataDir, 'reconcile', '--limit', 'lots')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--limit must be a whole number/),
    });
  });

  it('exports collections and balances; mistakes name the flag to fix', () => {
    const { dataDir, refs } = prepare();
    const out = path.join(dataDir, 'collections.csv');
    const r = cli(dataDir, 'export', 'collections', '--out', out, '--bom');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    const csv = fs.readFileSync(out, 'utf8');
    expect(csv.startsWith('\uFEFFmerchant_reference,')).toBe(true);
    expect(csv).toMatch(
      new RegExp(
        `\\r\\n${refs[0]},INT-[\\w-]+,2026-11-05T10:00:01\\.000\\+03:00,50000,UGX,COMPLETED,PENDING,,COMPLETED,,,matched,matched,false,`,
      ),
    );
    expect(csv).toContain("'=2+3 cash order");
    expect(csv).toContain(',123.45,KES,');

    const bal = path.join(dataDir, 'balances.csv');
    const b = cli(dataDir, 'export', 'balances', '--from', '2026-11-05', '--to', '2026-11-05', '--out', bal);
    expect(b.code).toBe(0);
    expect(b.stdout.trim().split('\n')).toEqual([bal, path.join(dataDir, 'balances-snapshots.csv')]);
    expect(fs.readFileSync(bal, 'utf8')).toContain(
      'KES,MERCHANT_COLLECTION,actual,1000.00,900.00,900.00,1000.00,-100.00,2026-11-05T11:00:00.000+03:00',
    );

    expect(cli(dataDir, 'export', 'balances', '--to', '2026-11-05', '--out', bal)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--from: the balance report needs a start date/),
    });
    expect(cli(dataDir, 'export', 'collections', '--from', '2026-13-01', '--out', out)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--from: "2026-13-01" is not a real date/),
    });
    expect(cli(dataDir, 'export', 'collections', '--out', path.join(dataDir, 'missing', 'x.csv'))).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--out: the folder .*missing does not exist/),
    });
    expect(cli(dataDir, 'export', 'everything', '--out', out)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/"balances" or "collections"/),
    });
  }, 120_000); // a dozen CLI processes, each started through tsx: slow on a busy machine, not a timing check

  it('--out FILE.xlsx writes a workbook of typed cells; --bom is for CSV only', async () => {
    const { dataDir, refs } = prepare();
    const out = path.join(dataDir, 'collections.xlsx');
    const r = cli(dataDir, 'export', 'collections', '--out', out);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    const [sheet] = await readXlsx(out);
    const rows = recordsOf(sheet!).records;
    expect(rows.map((x) => x.merchant_reference!.value)).toEqual(refs);
    expect(rows.map((x) => [x.amount!.type, x.amount!.value, x.amount!.numFmt])).toEqual([
      ['number', 50_000, '#,##0'],
      ['number', 123.45, '#,##0.00'],
    ]);
    expect(rows[0]!.created_at).toMatchObject({ type: 'date', value: new Date(Date.UTC(2026, 10, 5, 10, 0, 1)) });
    expect(rows[0]!.description!.value).toBe("'=2+3 cash order");

    const bal = path.join(dataDir, 'balances.xlsx');
    const b = cli(dataDir, 'export', 'balances', '--from', '2026-11-05', '--to', '2026-11-05', '--out', bal);
    expect(b.code).toBe(0);
    expect(b.stdout.trim().split('\n')).toEqual([bal]);
    expect((await readXlsx(bal)).map((x) => x.name)).toEqual(['Summary', 'Snapshots']);

    expect(cli(dataDir, 'export', 'collections', '--out', out, '--bom')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--bom is for CSV files/),
    });
  }, 120_000);
});
