import { describe, expect, it } from 'vitest';
import { balanceMovement } from '../../main/reconcile/index.js';
import { History, testDb } from './fixtures.js';

describe('balance movement between consecutive successful polls', () => {
  it('explains the change of the collection wallet by completed collections and shows the rest', () => {
    const { db } = testDb();
    const h = new History(db, Date.UTC(2026, 10, 2, 8, 0, 0));
    const t0 = h.t;
    h.poll(t0, [
      { currency: 'UGX', actualMinor: 1_000_000 },
      { currency: 'KES', actualMinor: 50_000 },
      { currency: 'UGX', actualMinor: 777, walletType: 'MERCHANT_PAYOUT' },
    ]);
    // interval 1: two UGX collections complete (credit 96,500 + 48,250); the wallet moves by exactly that
    const a = h.collection({ amountMinor: 100_000 });
    h.accepted(a);
    h.callback(a, 'COMPLETED', { at: t0 + 10_000 });
    h.callback(a, 'COMPLETED', { at: t0 + 11_000 }); // a repeated delivery does not count twice
    const b = h.collection({ amountMinor: 50_000 });
    h.accepted(b);
    h.callback(b, 'COMPLETED', { at: t0 + 20_000 });
    const c = h.collection({ amountMinor: 9_999 });
    h.accepted(c);
    h.callback(c, 'FAILED', { at: t0 + 30_000 }); // no credit
    h.poll(t0 + 60_000, [{ currency: 'UGX', actualMinor: 1_000_000 + 96_500 + 48_250 }]);
    // interval 2: nothing happens (quiet)
    h.poll(t0 + 120_000);
    // interval 3: the wallet grows by 5,000 more than explained; a KES collection of 25.00 completes
    const k = h.collection({ amountMinor: 2_500, currency: 'KES' });
    h.accepted(k);
    h.callback(k, 'COMPLETED', { at: t0 + 150_000, totalCreditMinor: 2_413 });
    h.poll(t0 + 180_000, [
      { currency: 'UGX', actualMinor: 1_149_750 },
      { currency: 'KES', actualMinor: 52_413 },
    ]);
    // interval 4: collection a's final status flips to FAILED: its credit is taken back
    h.callback(a, 'FAILED', { at: t0 + 200_000 });
    h.poll(t0 + 240_000, [{ currency: 'UGX', actualMinor: 1_149_750 - 96_500 }]);

    const m = balanceMovement(db, { from: t0, to: t0 + 240_000 });
    expect(m.polls).toBe(5);
    const ugx = m.intervals.filter((i) => i.currency === 'UGX');
    expect(ugx.map((i) => [i.changeMinor, i.creditedMinor, i.unexplainedMinor])).toEqual([
      [144_750, 144_750, 0],
      [5_000, 0, 5_000],
      [-96_500, -96_500, 0],
    ]);
    expect(ugx[0]).toMatchObject({ openingActualMinor: 1_000_000, closingActualMinor: 1_144_750, collections: 2 });
    const kes = m.intervals.filter((i) => i.currency === 'KES');
    expect(kes.map((i) => [i.changeMinor, i.creditedMinor, i.unexplainedMinor])).toEqual([[2_413, 2_413, 0]]);
    expect(m.totals.find((t) => t.currency === 'UGX')).toMatchObject({
      unexplainedMinor: 5_000,
      unexplainedIntervals: 1,
      intervals: 4,
    });
    expect(m.quietIntervals).toBe(4); // UGX interval 2, KES intervals 1, 2 and 4

    const only = balanceMovement(db, { from: t0, to: t0 + 240_000, onlyUnexplained: true });
    expect(only.intervals).toHaveLength(1);
    expect(only.intervals[0]).toMatchObject({
      currency: 'UGX',
      unexplainedMinor: 5_000,
      fromAt: new Date(t0 + 120_000).toISOString(),
    });
    expect(balanceMovement(db, { from: t0, to: t0 + 240_000, currency: 'KES' }).totals.map((t) => t.currency)).toEqual([
      'KES',
    ]);
  });
});
