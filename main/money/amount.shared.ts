import { currencyExponent, MoneyError } from './currency.shared.js';
import { codeAmountText, decimalText } from './minor-units.shared.js';

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Parses a decimal amount (string, or a JSON number from the service) into integer minor units.
 * Rejects more decimals than the currency allows instead of rounding, and anything that is not a
 * plain decimal (exponents, NaN, thousands separators). `field` names the input in the message.
 */
export function toMinor(value: unknown, currency: string, field = 'amount'): number {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new MoneyError(field, 'is not a finite number');
    // String(n) is the shortest text that round-trips, so 1500.5 -> "1500.5" and 0.1+0.2 -> 0.30000000000000004 (rejected below).
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    throw new MoneyError(field, `must be a number or a decimal string, got ${value === null ? 'null' : typeof value}`);
  }
  const m = DECIMAL.exec(text);
  if (!m) throw new MoneyError(field, `"${truncate(text)}" is not a plain decimal amount`);
  const [, sign, whole, frac = ''] = m;
  const exp = currencyExponent(currency);
  const fracTrimmed = frac.replace(/0+$/, '');
  if (fracTrimmed.length > exp) {
    throw new MoneyError(field, `"${text}" has more decimals than ${currency} allows (${exp})`);
  }
  const digits = (whole ?? '0') + fracTrimmed.padEnd(exp, '0');
  // Up to 15 digits is below 2^53: the integer is exact as a Number, and the BigInt below (a third of
  // a callback's amounts' cost, four amounts a callback) is not needed. Zero stays 0, never -0.
  if (digits.length <= 15) {
    const n = Number(digits);
    return sign && n !== 0 ? -n : n;
  }
  const big = BigInt(digits) * (sign ? -1n : 1n);
  if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new MoneyError(field, `"${text}" is too large`);
  }
  return Number(big);
}

/** Formats integer minor units as a plain decimal string with exactly the currency's decimals ("1500.50"). */
export function formatMinor(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new MoneyError('amount', `${minor} is not an integer amount in minor units`);
  return decimalText(minor, currencyExponent(currency));
}

/** Formats for people: thousands separators, currency code ("UGX 1,500,000", "KES 1,234.50"). */
export function displayMinor(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new MoneyError('amount', `${minor} is not an integer amount in minor units`);
  currencyExponent(currency); // an unknown code is the same error as formatMinor's
  return codeAmountText(minor, currency)!;
}

function truncate(s: string): string {
  return s.length > 40 ? s.slice(0, 40) + '…' : s;
}
