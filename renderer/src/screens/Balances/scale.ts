// Pure helpers of the balance history chart (no React, so plain tests can import them). Amounts stay
// integer minor units; floats are used only to place ticks.
import { currencyExponent } from '../../../../main/money/currency.shared.js';
import type { BalancePointView } from '../../../../main/ipc/contract/balances.js';
import type { Formats } from '../../ui/format.js';
import { WALLET_TYPES } from './labels.js';

const DAY = 86_400_000;

export interface Row {
  at: number;
  [walletType: string]: number;
}

/** Step series: at every change, every wallet's actual balance as of then (carried forward to `to`). */
export function toRows(points: BalancePointView[], to: number): { rows: Row[]; wallets: string[] } {
  const known: readonly string[] = WALLET_TYPES;
  const rank = (w: string) => (known.includes(w) ? known.indexOf(w) : known.length);
  const wallets = [...new Set(points.map((p) => p.walletType))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const current: Record<string, number> = {};
  const rows: Row[] = [];
  for (const p of [...points].sort((a, b) => a.at - b.at)) {
    current[p.walletType] = p.actualMinor;
    const last = rows[rows.length - 1];
    if (last && last.at === p.at) Object.assign(last, current);
    else rows.push({ at: p.at, ...current });
  }
  if (rows.length && rows[rows.length - 1]!.at < to) rows.push({ ...rows[rows.length - 1]!, at: to });
  return { rows, wallets };
}

/**
 * Y axis ticks for one wallet: round steps (1, 2 or 5 times a power of ten, in minor units, so whole
 * units once the step reaches one unit) around the wallet's own low and high, so a move of a few
 * percent shows instead of a flat line far above zero. A flat series gets a step above and below.
 */
export function yTicks(lo: number, hi: number, currency: string): number[] {
  const unit = 10 ** currencyExponent(currency);
  if (hi < lo) [lo, hi] = [hi, lo];
  const span = hi - lo || Math.max(unit, Math.round(Math.abs(hi) / 50));
  const raw = span / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => Math.round(m * mag)).find((s) => s >= raw) ?? Math.round(10 * mag));
  let first = Math.floor(lo / step) * step;
  let last = Math.ceil(hi / step) * step;
  if (first === last) {
    first -= step;
    last += step;
  }
  const ticks: number[] = [];
  for (let t = first; t <= last; t += step) ticks.push(t);
  return ticks;
}

/** Tick labels: "480,000" when every tick is a whole unit, else with the currency's decimals (the person's format). */
export function tickFormatter(ticks: number[], currency: string, f: Formats): (minor: number) => string {
  const exponent = currencyExponent(currency);
  const unit = 10 ** exponent;
  const whole = exponent > 0 && ticks.every((t) => t % unit === 0);
  // A whole number of units is an exact integer division: no float maths on an amount.
  return (minor) => (whole ? f.number(minor / unit) : f.amount(minor, currency, { code: false }));
}

/** "+1,234.50" / "-186.09" / "0.00": a change, without the code (the amount beside it has it). */
export function signedChange(minor: number, currency: string, f: Formats): string {
  return f.amount(minor, currency, { code: false, sign: true });
}

/** Local midnights inside [from, to], for day ticks on the time axis. */
export function dayTicks(from: number, to: number): number[] {
  const d = new Date(from);
  d.setHours(24, 0, 0, 0);
  const ticks: number[] = [];
  for (let t = d.getTime(); t <= to; t += DAY) {
    const m = new Date(t + DAY / 2); // daylight saving: land on that day's midnight
    m.setHours(0, 0, 0, 0);
    ticks.push(m.getTime());
    t = m.getTime();
  }
  return ticks;
}

/**
 * The time axis. With a full week of history it is the query's window [from, to]. A younger history (a
 * first start) would be an empty week with a dot at its right edge, so the axis starts where the history
 * starts and spans one window from there: the line grows from the left as the week fills in.
 */
export function chartDomain(from: number, to: number, firstAt: number | undefined): [number, number] {
  if (firstAt === undefined || firstAt <= from) return [from, to];
  return [firstAt, firstAt + (to - from)];
}
