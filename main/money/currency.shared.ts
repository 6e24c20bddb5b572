// ISO 4217 minor-unit exponents. Amounts everywhere in Merchant Desk are integer minor units
// (a JS number that must stay a safe integer) or decimal strings; never binary floating point maths.
import { DeskError } from '../errors.shared.js';
const EXPONENTS: Record<string, number> = {
  UGX: 0,
  KES: 2,
  TZS: 2,
  RWF: 0,
  USD: 2,
  EUR: 2,
  GBP: 2,
  ZAR: 2,
  NGN: 2,
  GHS: 2,
  XOF: 0,
  XAF: 0,
  ZMW: 2,
  MWK: 2,
  BIF: 0,
  CDF: 2,
  ETB: 2,
  SSP: 2,
  JPY: 0,
  KRW: 0,
  BHD: 3,
  KWD: 3,
  JOD: 3,
  OMR: 3,
  TND: 3,
  CAD: 2,
  AUD: 2,
  CHF: 2,
  CNY: 2,
  INR: 2,
  AED: 2,
  SAR: 2,
};

export const CURRENCY_CODE = /^[A-Z]{3}$/;

export function isKnownCurrency(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(EXPONENTS, code);
}

/** Decimal places of a currency's minor unit. Unknown codes are an error, not a guess. */
export function currencyExponent(code: string): number {
  const e = EXPONENTS[code];
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
