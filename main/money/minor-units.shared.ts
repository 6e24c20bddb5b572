// The currencies' minor units as plain data and text, with no error class: the words module
// (main/words/words.shared.ts) shows amounts with it, and DeskError (main/errors.shared.ts) is made from
// words, so nothing here may import DeskError. currency.shared.ts and amount.shared.ts add the checks.

// ISO 4217 minor-unit exponents.
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

/** Decimal places of a currency's minor unit, or undefined for a code we do not know. */
export function exponentOf(code: string): number | undefined {
  return Object.hasOwn(EXPONENTS, code) ? EXPONENTS[code] : undefined;
}

/** Integer minor units as a plain decimal string with exactly `exp` decimals ("1500.50"); no float maths. */
export function decimalText(minor: number, exp: number): string {
  const neg = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exp + 1, '0');
  const whole = exp === 0 ? digits : digits.slice(0, -exp);
  const frac = exp === 0 ? '' : '.' + digits.slice(-exp);
  return (neg ? '-' : '') + whole + frac;
}

/** "UGX 1,500,000", "KES 1,234.50" (the CLI's and the logs' English form); null when it cannot be told. */
export function codeAmountText(minor: number, currency: string): string | null {
  const exp = exponentOf(currency);
  if (exp === undefined || !Number.isSafeInteger(minor)) return null;
  const [whole = '', frac] = decimalText(minor, exp).replace('-', '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${currency} ${minor < 0 ? '-' : ''}${grouped}${frac !== undefined ? '.' + frac : ''}`;
}
