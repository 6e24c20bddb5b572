// Wire amounts: JSON numbers in major units, made from integer minor units through the decimal
// string (no float arithmetic on the way).
import { formatMinor } from '../main/money/index.js';

export function toWire(minor: number, currency: string): number {
  return Number(formatMinor(minor, currency));
}

/** rate as parts per thousand; half up, integer maths. */
export function perMille(amountMinor: number, parts: number): number {
  const n = BigInt(amountMinor) * BigInt(parts);
  return Number((n + 500n) / 1000n);
}

/** The card charge: 3.5% of the amount, rounded half up to the currency's minor unit. */
export const cardCharge = (amountMinor: number): number => perMille(amountMinor, 35);
/** The rolling reserve: 5% of what is credited, rounded half up. */
export const rollingReserve = (creditMinor: number): number => perMille(creditMinor, 50);
