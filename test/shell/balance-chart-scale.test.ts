// The balance history chart's pure parts (renderer/src/screens/Balances/scale.ts): each wallet's axis
// shows its own movement, labels are exact decimals, the step series carries values forward.
import { describe, expect, it } from 'vitest';
import {
  chartDomain,
  dayTicks,
  signedChange,
  tickFormatter,
  toRows,
  yTicks,
} from '../../renderer/src/screens/Balances/scale.js';
import { formatsFor } from '../../renderer/src/ui/format.js';

const en = formatsFor('en-US');
const fr = formatsFor('fr');

describe('yTicks', () => {
  it('spans the wallet’s own low and high, not zero, so a 1% move is visible', () => {
    const ticks = yTicks(44_997_793, 49_725_050, 'KES'); // KES 449,977.93 .. 497,250.50
    expect(ticks[0]).toBeLessThanOrEqual(44_997_793);
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(49_725_050);
    expect(ticks[0]).toBeGreaterThan(40_000_000);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks.every((t) => Number.isSafeInteger(t))).toBe(true);
    expect(tickFormatter(ticks, 'KES', en)(ticks[0]!)).toMatch(/^\d{3},000$/); // whole units: no ".00"
  });

  it('puts a flat series between two ticks, and keeps decimals when a step is under one unit', () => {
    expect(yTicks(1_066_000_000, 1_066_000_000, 'TZS')).toEqual([1_060_000_000, 1_070_000_000]);
    const small = yTicks(101, 104, 'USD'); // 1.01 .. 1.04
    expect(small[0]).toBeLessThanOrEqual(101);
    expect(small[small.length - 1]).toBeGreaterThanOrEqual(104);
    expect(small.map(tickFormatter(small, 'USD', en))).toContain('1.02');
    expect(yTicks(5, 5, 'UGX')).toEqual([4, 5, 6]);
  });

  it('handles an overdrawn (negative) wallet', () => {
    const ticks = yTicks(-15_000, 2_500, 'UGX');
    expect(ticks[0]).toBeLessThanOrEqual(-15_000);
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(2_500);
    expect(tickFormatter(ticks, 'UGX', en)(-15_000)).toBe('-15,000');
  });
});

describe('signedChange', () => {
  it('says the direction with the currency’s decimals', () => {
    expect(signedChange(4_636_816, 'KES', en)).toBe('+46,368.16');
    expect(signedChange(-18_609, 'KES', en)).toBe('-186.09');
    expect(signedChange(0, 'UGX', en)).toBe('0');
    // In French: a decimal comma and a narrow no-break space between thousands.
    expect(signedChange(4_636_816, 'KES', fr)).toBe('+46\u202f368,16');
    expect(tickFormatter([100_000, 200_000], 'KES', fr)(100_000)).toBe('1\u202f000');
  });
});

describe('toRows', () => {
  const p = (at: number, walletType: string, actualMinor: number) => ({
    at,
    currency: 'UGX',
    walletType,
    actualMinor,
    availableMinor: actualMinor,
    unclearedMinor: 0,
    reserveMinor: 0,
  });
  it('carries each wallet forward, collection before payout, and ends at `to`', () => {
    const { rows, wallets } = toRows(
      [p(30, 'MERCHANT_COLLECTION', 7), p(10, 'MERCHANT_PAYOUT', 1), p(10, 'MERCHANT_COLLECTION', 5)],
      100,
    );
    expect(wallets).toEqual(['MERCHANT_COLLECTION', 'MERCHANT_PAYOUT']);
    expect(rows).toEqual([
      { at: 10, MERCHANT_PAYOUT: 1, MERCHANT_COLLECTION: 5 },
      { at: 30, MERCHANT_PAYOUT: 1, MERCHANT_COLLECTION: 7 },
      { at: 100, MERCHANT_PAYOUT: 1, MERCHANT_COLLECTION: 7 },
    ]);
  });
});

describe('dayTicks', () => {
  it('gives one local midnight per day in the window', () => {
    const from = new Date(2026, 10, 14, 20, 19).getTime();
    const to = new Date(2026, 10, 21, 20, 19).getTime();
    const ticks = dayTicks(from, to);
    expect(ticks).toHaveLength(7);
    for (const t of ticks) expect([new Date(t).getHours(), new Date(t).getMinutes()]).toEqual([0, 0]);
    expect(new Date(ticks[0]!).getDate()).toBe(15);
  });
});

describe('chartDomain', () => {
  const DAY = 86_400_000;
  const to = Date.UTC(2026, 10, 22, 12);
  const from = to - 7 * DAY;
  it('keeps the query window when history covers it', () => {
    expect(chartDomain(from, to, from - DAY)).toEqual([from, to]);
    expect(chartDomain(from, to, from)).toEqual([from, to]);
  });
  it('on a first start, begins where the history begins so the week fills in from the left', () => {
    const first = to - 60_000; // the first balance read, a minute ago
    const [start, end] = chartDomain(from, to, first);
    expect(start).toBe(first);
    expect(end - start).toBe(7 * DAY);
    // The one point sits at the left edge, not squeezed against the right one.
    expect((first - start) / (end - start)).toBe(0);
  });
});
