// ISO 4217 minor-unit exponents. Amounts everywhere in Merchant Desk are integer minor units
// (a JS number that must stay a safe integer) or decimal strings; never binary floating point maths.
import { DeskError } from '../errors.shared.js';
import { exponentOf } from './minor-units.shared.js';

export const CURRENCY_CODE = /^[A-Z]{3}$/;

export function isKnownCurrency(code: string): boolean {
  return exponentOf(code) !== undefined;
}

/** Decimal places of a currency's minor unit. Unknown codes are an error, not a guess. */
export function currencyExponent(code: string): number {
  const e = exponentOf(code);
  if (e === undefined) throw new MoneyError('currency', `unknown currency code "${code}"`);
  return e;
}

/** A value that is not money we can handle; shown to the user as a validation error on `field`. */
export class MoneyError extends DeskError {
  declare readonly field: string;
  constructor(
    field: string,
    readonly reason: string,
  ) {
    super('validation', `${field}: ${reason}`, { field, expose: true });
  }
}
