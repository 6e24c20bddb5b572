// A card number as the form reads it: the brand from its leading digits (IIN ranges), the lengths and
// CVV length each brand has, the Luhn check digit, and the grouping printed on the card. Shared by the
// renderer (as the agent types) and main (card-input.shared.ts's rules, the charge's receipt details).
// Pure: no node imports.

export type CardBrand =
  'visa' | 'mastercard' | 'amex' | 'discover' | 'diners' | 'jcb' | 'unionpay' | 'maestro' | 'unknown';

export const BRAND_NAMES: Record<CardBrand, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  maestro: 'Maestro',
  unknown: 'Card',
};

export function digitsOnly(s: string): string {
  return s.replace(/\D/g, '');
}

/** Luhn (mod 10) check over the digits of `number`; false for anything with fewer than 12 digits. */
export function luhnValid(number: string): boolean {
  const d = digitsOnly(number);
  if (d.length < 12 || d.length > 19 || d.length !== number.replace(/[\s-]/g, '').length) return false;
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let n = d.charCodeAt(d.length - 1 - i) - 48;
    if (i % 2 === 1) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
  }
  return sum % 10 === 0;
}

/** Brand from the leading digits (IIN ranges). Works on a partial number as the agent types. */
export function detectBrand(number: string): CardBrand {
  const d = digitsOnly(number);
  if (!d) return 'unknown';
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  const p6 = Number(d.slice(0, 6));
  if (d.startsWith('34') || d.startsWith('37')) return 'amex';
  if (d.startsWith('4')) return 'visa';
  if ((p2 >= 51 && p2 <= 55) || (d.length >= 4 && p4 >= 2221 && p4 <= 2720)) return 'mastercard';
  if (
    d.startsWith('6011') ||
    d.startsWith('65') ||
    (p3 >= 644 && p3 <= 649) ||
    (d.length >= 6 && p6 >= 622126 && p6 <= 622925)
  )
    return 'discover';
  if (d.startsWith('36') || d.startsWith('38') || d.startsWith('39') || (p3 >= 300 && p3 <= 305)) return 'diners';
  if (d.length >= 4 && p4 >= 3528 && p4 <= 3589) return 'jcb';
  if (d.startsWith('62')) return 'unionpay';
  if (d.startsWith('50') || (p2 >= 56 && p2 <= 69)) return 'maestro';
  return 'unknown';
}

/** Allowed card number lengths per brand. */
export function numberLengths(brand: CardBrand): number[] {
  switch (brand) {
    case 'amex':
      return [15];
    case 'diners':
      return [14, 16, 19];
    case 'visa':
      return [13, 16, 19];
    case 'mastercard':
      return [16];
    case 'maestro':
      return [12, 13, 14, 15, 16, 17, 18, 19];
    default:
      return [16, 17, 18, 19];
  }
}

/** CVV length by brand: 4 for American Express, 3 otherwise. */
export function cvvLength(brand: CardBrand): number {
  return brand === 'amex' ? 4 : 3;
}

/** Groups digits as printed on the card: Amex 4-6-5, Diners (14) 4-6-4, others in fours. */
export function groupCardNumber(number: string): string {
  const d = digitsOnly(number).slice(0, 19);
  const brand = detectBrand(d);
  const groups = brand === 'amex' ? [4, 6, 5] : brand === 'diners' && d.length <= 14 ? [4, 6, 4] : null;
  if (groups) {
    const out: string[] = [];
    let i = 0;
    for (const g of groups) {
      if (i >= d.length) break;
      out.push(d.slice(i, i + g));
      i += g;
    }
    if (i < d.length) out.push(d.slice(i));
    return out.join(' ');
  }
  return d.replace(/(\d{4})(?=\d)/g, '$1 ');
}

export function last4(number: string): string {
  return digitsOnly(number).slice(-4);
}
