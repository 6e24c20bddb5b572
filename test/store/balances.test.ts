import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { migrate, openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import { migrations } from '../../main/store/sqlite/migrations/index.js';
import { balanceHistory, latestBalances, recordBalanceRun } from '../../main/store/sqlite/balances.js';
import { listPollRuns } from '../../main/store/sqlite/poll-runs.js';
import type { WalletBalance } from '../../main/service/types.js';

function db(): Db {
  return openDatabase(path.join(tempDir(), 'md.sqlite'));
}

const ugx = (available: number, uncleared = 0, reserve = 0): WalletBalance => ({
  currency: 'UGX',
  walletType: 'MERCHANT_COLLECTION',
  availableMinor: available,
  unclearedMinor: uncleared,
  reserveMinor: reserve,
  actualMinor: available + uncleared + reserve,
});
const kes: WalletBalance = {
  currency: 'KES',
  walletType: 'MERCHANT_PAYOUT',
  availableMinor: 150050,
  unclearedMinor: 0,
  reserveMinor: 0,
  actualMinor: 150050,
};

describe('balances cache', () => {
  it('writes a snapshot only for wallets that are new or changed, and logs every run', () => {
    const d = db();
    const r1 = recordBalanceRun(d, {
      startedAt: 1000,
      finishedAt: 1100,
      result: { ok: true, value: [ugx(5000), kes] },
    });
    expect(r1.changed).toBe(2);
    const r2 = recordBalanceRun(d, {
      startedAt: 2000,
      finishedAt: 2100,
      result: { ok: true, value: [ugx(5000), kes] },
    });
    expect(r2.changed).toBe(0);
    const r3 = recordBalanceRun(d, {
      startedAt: 3000,
      finishedAt: 3100,
      result: { ok: true, value: [ugx(4000, 1000), kes] },
    });
    expect(r3.changed).toBe(1);
    expect((d.prepare('SELECT COUNT(*) AS n FROM balance_snapshots').get() as { n: number }).n).toBe(3);
    expect(listPollRuns(d, { kind: 'balances' }).map((r) => [r.outcome, r.changedRows])).toEqual([
      ['ok', 1],
      ['ok', 0],
      ['ok', 2],
    ]);
    const latest = latestBalances(d, { now: 3200, staleAfterMs: 60_000 });
    expect(latest.asOf).toBe(3100);
    expect(latest.stale).toBe(false);
    expect(latest.lastError).toBeNull();
    expect(latest.rows.map((r) => [r.currency, r.availableMinor, r.unclearedMinor, r.observedAt])).toEqual([
      ['KES', 150050, 0, 1100],
      ['UGX', 4000, 1000, 3100],
    ]);
  });

  it('a failed run leaves the cache as it was, records the error and marks the cache stale', () => {
    const d = db();
    recordBalanceRun(d, { startedAt: 1000, finishedAt: 1100, result: { ok: true, value: [ugx(5000)] } });
    recordBalanceRun(d, {
      startedAt: 2000,
      finishedAt: 2100,
      result: { ok: false, error: { kind: 'unavailable', message: 'the service answered 503', httpStatus: 503 } },
    });
    const latest = latestBalances(d, { now: 2200, staleAfterMs: 60_000 });
    expect(latest.rows.map((r) => r.availableMinor)).toEqual([5000]);
    expect(latest.asOf).toBe(1100);
    expect(latest.stale).toBe(true);
    expect(latest.lastError).toMatchObject({
      kind: 'unavailable',
      message: 'the service answered 503',
      httpStatus: 503,
      at: 2100,
    });
    // Recovery clears the error and the stale mark.
    recordBalanceRun(d, { startedAt: 3000, finishedAt: 3100, result: { ok: true, value: [ugx(5000)] } });
    const after = latestBalances(d, { now: 3200, staleAfterMs: 60_000 });
    expect(after.stale).toBe(false);
    expect(after.lastError).toBeNull();
  });

  it('old data is stale even without an error', () => {
    const d = db();
    recordBalanceRun(d, { startedAt: 0, finishedAt: 100, result: { ok: true, value: [ugx(1)] } });
    expect(latestBalances(d, { now: 100 + 60_001, staleAfterMs: 60_000 }).stale).toBe(true);
  });

  it('rejects a malformed answer (duplicate wallet, fractional minor units, bad currency) without touching the cache', () => {
    const d = db();
    recordBalanceRun(d, { startedAt: 0, finishedAt: 100, result: { ok: true, value: [ugx(7)] } });
    const bad: WalletBalance[][] = [
      [ugx(1), ugx(2)],
      [{ ...ugx(1), availableMinor: 1.5 }],
      [{ ...ugx(1), currency: 'ugx!' }],
    ];
    for (const value of bad) {
      const r = recordBalanceRun(d, { startedAt: 200, finishedAt: 300, result: { ok: true, value } });
      expect(r.error?.kind).toBe('unreadable');
    }
    const runs = listPollRuns(d, { kind: 'balances' });
    expect(runs[0]?.errorMessage).toMatch(/available_balance is not a valid amount|currency|twice/);
    expect(runs.filter((r) => r.outcome === 'error').map((r) => r.errorMessage)).toEqual([
      expect.stringMatching(/merchant_balances\[0\]\.currency is not a 3-letter currency code/),
      expect.stringMatching(/merchant_balances\[0\]\.available_balance is not a valid amount/),
      expect.stringMatching(/wallet UGX\/MERCHANT_COLLECTION twice/),
    ]);
    expect(latestBalances(d, { now: 400, staleAfterMs: 60_000 }).rows.map((r) => r.availableMinor)).toEqual([7]);
  });

  it('flags a wallet whose actual is not the sum of the others', () => {
    const d = db();
    recordBalanceRun(d, {
      startedAt: 0,
      finishedAt: 1,
      result: { ok: true, value: [{ ...ugx(10, 5, 1), actualMinor: 17 }, kes] },
    });
    const rows = latestBalances(d, { now: 2, staleAfterMs: 60_000 }).rows;
    expect(rows.find((r) => r.currency === 'UGX')?.consistent).toBe(false);
    expect(rows.find((r) => r.currency === 'KES')?.consistent).toBe(true);
  });

  it('history starts with the value at `from` and lists each change in the range', () => {
    const d = db();
    recordBalanceRun(d, { startedAt: 0, finishedAt: 100, result: { ok: true, value: [ugx(1), kes] } });
    recordBalanceRun(d, { startedAt: 0, finishedAt: 200, result: { ok: true, value: [ugx(2), kes] } });
    recordBalanceRun(d, { startedAt: 0, finishedAt: 300, result: { ok: true, value: [ugx(3), kes] } });
    recordBalanceRun(d, { startedAt: 0, finishedAt: 400, result: { ok: true, value: [ugx(4), kes] } });
    const h = balanceHistory(d, { currency: 'UGX', from: 150, to: 300 });
    expect(h.map((p) => [p.at, p.availableMinor])).toEqual([
      [150, 1],
      [200, 2],
      [300, 3],
    ]);
    expect(balanceHistory(d, { currency: 'UGX', walletType: 'MERCHANT_PAYOUT', from: 0, to: 1000 })).toEqual([]);
  });

  it('snapshots cannot be edited or deleted', () => {
    const d = db();
    recordBalanceRun(d, { startedAt: 0, finishedAt: 100, result: { ok: true, value: [ugx(1)] } });
    expect(() => d.prepare('UPDATE balance_snapshots SET available_minor = 9').run()).toThrow(/append-only/);
    expect(() => d.prepare('DELETE FROM balance_snapshots').run()).toThrow(/append-only/);
  });

  it('migration 004 points every existing wallet at its latest snapshot', () => {
    const file = path.join(tempDir(), 'md.sqlite');
    const old = openDatabase(
      file,
      migrations.filter((m) => m.version < 4),
    );
    const ins = old.prepare(
      'INSERT INTO balance_snapshots (observed_at, currency, wallet_type, available_minor, actual_minor, uncleared_minor, reserve_minor) VALUES (?, ?, ?, ?, ?, 0, 0)',
    );
    ins.run(1, 'UGX', 'MERCHANT_COLLECTION', 1, 1);
    ins.run(2, 'KES', 'MERCHANT_PAYOUT', 5, 5);
    ins.run(3, 'UGX', 'MERCHANT_COLLECTION', 2, 2);
    old.prepare("INSERT INTO poll_runs (kind, started_at, finished_at, outcome) VALUES ('balances', 3, 3, 'ok')").run();
    migrate(old);
    expect(
      latestBalances(old, { now: 4, staleAfterMs: 60_000 }).rows.map((r) => [r.currency, r.availableMinor]),
    ).toEqual([
      ['KES', 5],
      ['UGX', 2],
    ]);
    recordBalanceRun(old, { startedAt: 5, finishedAt: 6, result: { ok: true, value: [ugx(3)] } });
    expect(latestBalances(old, { now: 7, staleAfterMs: 60_000 }).rows.map((r) => r.availableMinor)).toEqual([5, 3]);
  });
});
