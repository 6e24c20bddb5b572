// Card payment form rules, shared by the renderer (as the agent types) and main (once, before anything
// is saved or sent: parseCharge and parseCard are the only makers of a ValidCard). Pure: no node imports,
// no clock of its own (the caller passes `now`). What a card number is (brand, lengths, check digit) is
// card-number.shared.ts's.
// Error messages never contain the value typed (card data must not land in a message).
import { z } from 'zod';
import { BILLING_REQUIRED_COUNTRIES } from './billing-countries.shared.js';
import { BRAND_NAMES, cvvLength, detectBrand, luhnValid, numberLengths } from './card-number.shared.js';

/** Whether a card billed in `country` needs its billing address. */
export function billingRequired(country: string | undefined | null): boolean {
  return !!country && BILLING_REQUIRED_COUNTRIES.includes(country.trim().toUpperCase());
}

/** Expiry is valid through the last day of its month (in UTC). Year: 2 or 4 digits. */
export function expiryProblem(month: string, year: string, now: number): string | null {
  const m = month.trim();
  const y = year.trim();
  if (!/^\d{1,2}$/.test(m) || Number(m) < 1 || Number(m) > 12) return 'month must be 01 to 12';
  if (!/^(\d{2}|\d{4})$/.test(y)) return 'year must be 2 or 4 digits';
  const fullYear = y.length === 2 ? 2000 + Number(y) : Number(y);
  const endOfMonth = Date.UTC(fullYear, Number(m), 1); // first instant of the following month
  if (endOfMonth <= now) return 'the card has expired';
  if (fullYear > new Date(now).getUTCFullYear() + 25) return 'year is too far in the future';
  return null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** What the agent types. Amount is a decimal string in major units ("1500.50"). */
export const cardFormSchema = z.object({
  amount: z.string().trim(),
  currency: z.string().trim().toUpperCase(),
  description: z.string(),
  customerName: z.string().trim().max(100).optional(),
  customerEmail: z.string().trim().max(254).optional(),
  chargeCustomer: z.boolean().default(false),
  allowFinalStatusChange: z.boolean().default(true),
  card: z.object({
    number: z.string(),
    expMonth: z.string(),
    expYear: z.string(),
    cvv: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    pin: z.string().optional(),
    billingAddress: z.string().optional(),
    billingCity: z.string().optional(),
    billingZip: z.string().optional(),
    billingState: z.string().optional(),
    billingCountry: z.string().optional(),
  }),
});
export type CardForm = z.input<typeof cardFormSchema>;
export type CardFormParsed = z.output<typeof cardFormSchema>;
export type CardFields = CardFormParsed['card'];

/** Limits of the card option for the chosen currency, in minor units. */
export interface AmountLimits {
  minMinor: number;
  maxMinor: number;
  maxDailyMinor: number;
  /** Already collected today (COMPLETED + PENDING). */
  collectedTodayMinor: number;
  /** Decimal places of the currency. */
  exponent: number;
}

/** Field name -> message. Names match the form (and the IPC request): "card.number", "amount", ... */
export type FieldErrors = Record<string, string>;

/** Parses a decimal amount into minor units without float maths; null with a reason when it is not valid. */
export function parseAmount(text: string, exponent: number): { minor: number } | { error: string } {
  const t = text.trim().replace(/,/g, '');
  if (!t) return { error: 'amount is required' };
  if (!DECIMAL.test(t)) return { error: 'amount must be a plain number, e.g. 1500 or 1500.50' };
  const [whole = '0', frac = ''] = t.split('.');
  const f = frac.replace(/0+$/, '');
  if (f.length > exponent)
    return {
      error: exponent === 0 ? 'amount takes no decimals in this currency' : `amount takes at most ${exponent} decimals`,
    };
  const digits = (whole + f.padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
  if (digits.length > 15) return { error: 'amount is too large' };
  const minor = Number(digits);
  if (minor <= 0) return { error: 'amount must be more than zero' };
  return { minor };
}

function fmt(minor: number, exponent: number): string {
  const s = String(minor).padStart(exponent + 1, '0');
  const whole = exponent ? s.slice(0, -exponent) : s;
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (exponent ? '.' + s.slice(-exponent) : '');
}

/** The result of parsing: the validated value, or per-field messages (never empty when not ok). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

declare const validCard: unique symbol;
/**
 * A card that passed every rule below (the one Luhn check included). Only parseCharge and parseCard make
 * one, so whatever takes a ValidCard (the card cipher, through charge/card-data.ts) need not check again.
 */
export type ValidCard = CardFields & { readonly [validCard]: true };

/** A charge that passed every rule: amount in minor units within the option's limits, and a ValidCard. */
export interface ValidCharge {
  amountMinor: number;
  currency: string;
  description: string;
  customerName: string | null;
  customerEmail: string | null;
  chargeCustomer: boolean;
  allowFinalStatusChange: boolean;
  card: ValidCard;
}

/** zod's issues as form field errors: "card.cvv is required". */
function shapeErrors(issues: readonly z.core.$ZodIssue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.join('.') || 'form';
    if (!errors[key]) errors[key] = `${key} ${issue.code === 'invalid_type' ? 'is required' : 'is not valid'}`;
  }
  return errors;
}

/** Drops the references a parsed copy of the card holds (strings cannot be zeroed) when it is not passed on. */
function forget(card: object | undefined): void {
  const c = card as Record<string, unknown> | undefined;
  if (c) for (const k of Object.keys(c)) if (typeof c[k] === 'string') c[k] = '';
}

/**
 * The one check of a charge form, in the renderer (as the agent types, through validateCardForm) and in
 * main (once, before anything is saved or sent). `limits` is null when no active card option exists for
 * the currency. Errors come in form order, so the first is the first field to fix.
 */
export function parseCharge(form: CardForm, opts: { now: number; limits: AmountLimits | null }): Parsed<ValidCharge> {
  const parsed = cardFormSchema.safeParse(form);
  if (!parsed.success) return { ok: false, errors: shapeErrors(parsed.error.issues) };
  const f = parsed.data;
  const errors: FieldErrors = {};

  // amount and currency
  let amountMinor = 0;
  if (!/^[A-Z]{3}$/.test(f.currency)) errors.currency = 'currency must be a 3-letter code';
  else if (!opts.limits) errors.currency = `no active card option for ${f.currency}`;
  if (opts.limits) {
    const a = parseAmount(f.amount, opts.limits.exponent);
    if ('error' in a) errors.amount = a.error;
    else {
      const { minMinor, maxMinor, maxDailyMinor, collectedTodayMinor, exponent } = opts.limits;
      const remaining = Math.max(0, maxDailyMinor - collectedTodayMinor);
      if (a.minor < minMinor) errors.amount = `amount must be at least ${fmt(minMinor, exponent)}`;
      else if (a.minor > maxMinor) errors.amount = `amount must be at most ${fmt(maxMinor, exponent)}`;
      else if (a.minor > remaining)
        errors.amount = `amount exceeds what remains of today's limit (${fmt(remaining, exponent)} of ${fmt(maxDailyMinor, exponent)})`;
      amountMinor = a.minor;
    }
  }

  const dlen = f.description.trim().length;
  if (dlen < 10 || dlen > 30) errors.description = `description must be 10 to 30 characters (now ${dlen})`;
  if (f.customerEmail && !EMAIL.test(f.customerEmail)) errors.customerEmail = 'customer e-mail is not a valid address';

  Object.assign(errors, cardErrors(f.card, opts.now));
  if (Object.keys(errors).length) {
    forget(f.card);
    return { ok: false, errors };
  }
  return {
    ok: true,
    value: {
      amountMinor,
      currency: f.currency,
      description: f.description.trim(),
      customerName: f.customerName || null,
      customerEmail: f.customerEmail || null,
      chargeCustomer: f.chargeCustomer,
      allowFinalStatusChange: f.allowFinalStatusChange,
      card: f.card as ValidCard,
    },
  };
}

/** The check of a card typed again on its own (re-sending a payment): the card rules of parseCharge. */
export function parseCard(card: CardFields, now: number): Parsed<ValidCard> {
  const parsed = cardFormSchema.shape.card.safeParse(card);
  if (!parsed.success) return { ok: false, errors: { card: 'the card details are incomplete' } };
  const errors = cardErrors(parsed.data, now);
  if (Object.keys(errors).length) {
    forget(parsed.data);
    return { ok: false, errors };
  }
  return { ok: true, value: parsed.data as ValidCard };
}

/** Validates the whole form for display: per-field messages, an empty object when it is valid. */
export function validateCardForm(form: CardForm, opts: { now: number; limits: AmountLimits | null }): FieldErrors {
  const r = parseCharge(form, opts);
  return r.ok ? {} : r.errors;
}

const CARD_LABELS: Record<keyof CardFields, string> = {
  number: 'card number',
  expMonth: 'expiry month',
  expYear: 'expiry year',
  cvv: 'CVV',
  firstName: 'cardholder first name',
  lastName: 'cardholder last name',
  pin: 'PIN',
  billingAddress: 'billing address',
  billingCity: 'billing city',
  billingZip: 'billing zip or postal code',
  billingState: 'billing state',
  billingCountry: 'billing country',
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The card's rules: card.* field -> message. */
function cardErrors(c: CardFields, now: number): FieldErrors {
  const errors: FieldErrors = {};
  const compact = c.number.replace(/[\s-]/g, '');
  const brand = detectBrand(compact);
  if (!compact) errors['card.number'] = 'card number is required';
  else if (!/^\d+$/.test(compact)) errors['card.number'] = 'card number may contain only digits';
  else if (!numberLengths(brand).includes(compact.length))
    errors['card.number'] =
      `card number has ${compact.length} digits; a ${BRAND_NAMES[brand]} number has ${numberLengths(brand).join(' or ')}`;
  else if (!luhnValid(compact)) errors['card.number'] = 'card number is not valid (check digit); check for a typo';

  const exp = expiryProblem(c.expMonth, c.expYear, now);
  if (exp) errors[exp.startsWith('year') ? 'card.expYear' : 'card.expMonth'] = `expiry: ${exp}`;

  const cvv = c.cvv.trim();
  const want = cvvLength(brand);
  if (!/^\d+$/.test(cvv) || cvv.length !== want)
    errors['card.cvv'] = `CVV must be ${want} digits for ${BRAND_NAMES[brand]}`;

  if (!c.firstName.trim()) errors['card.firstName'] = 'cardholder first name is required';
  else if (c.firstName.trim().length > 50) errors['card.firstName'] = 'cardholder first name is too long (50 at most)';
  if (!c.lastName.trim()) errors['card.lastName'] = 'cardholder last name is required';
  else if (c.lastName.trim().length > 50) errors['card.lastName'] = 'cardholder last name is too long (50 at most)';

  if (c.pin !== undefined && c.pin !== '' && !/^\d{4,6}$/.test(c.pin))
    errors['card.pin'] = 'PIN must be 4 to 6 digits (or empty)';

  const country = (c.billingCountry ?? '').trim();
  if (country && !/^[A-Za-z]{2}$/.test(country))
    errors['card.billingCountry'] = 'billing country must be a 2-letter ISO code, e.g. US';
  if (billingRequired(country)) {
    const need: (keyof CardFields)[] = ['billingAddress', 'billingCity', 'billingZip', 'billingState'];
    for (const k of need) {
      const v = (c[k] as string | undefined)?.trim() ?? '';
      if (!v) errors[`card.${k}`] = `${CARD_LABELS[k]} is required for cards billed in ${country.toUpperCase()}`;
    }
  }
  for (const k of ['billingAddress', 'billingCity', 'billingZip', 'billingState'] as const) {
    const v = c[k];
    if (v && v.length > 100 && !errors[`card.${k}`]) errors[`card.${k}`] = `${k} is too long (100 at most)`;
  }
  // A line break or other control character inside a name or address would reach the service as-is.
  for (const k of Object.keys(CARD_LABELS) as (keyof CardFields)[]) {
    const v = c[k];
    if (v && CONTROL.test(v.trim()) && !errors[`card.${k}`])
      errors[`card.${k}`] = `${CARD_LABELS[k]} contains control characters`;
  }
  return errors;
}
