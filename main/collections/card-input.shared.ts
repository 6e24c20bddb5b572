// Card payment form rules, shared by the renderer (as the agent types) and main (once, before anything
// is saved or sent: parseCharge and parseCard are the only makers of a ValidCard). Pure: no node imports,
// no clock of its own (the caller passes `now`). What a card number is (brand, lengths, check digit) is
// card-number.shared.ts's.
// Error messages never contain the value typed (card data must not land in a message). They are words
// (main/words/payment.shared.ts): the window says them in the person's language, main in English.
import { z } from 'zod';
import { BILLING_REQUIRED_COUNTRIES } from './billing-countries.shared.js';
import { BRAND_NAMES, cvvLength, detectBrand, luhnValid, numberLengths } from './card-number.shared.js';
import { words, type MessageId, type Words } from '../words/words.shared.js';

/** Whether a card billed in `country` needs its billing address. */
export function billingRequired(country: string | undefined | null): boolean {
  return !!country && BILLING_REQUIRED_COUNTRIES.includes(country.trim().toUpperCase());
}

/** Expiry is valid through the last day of its month (in UTC). Year: 2 or 4 digits. */
export function expiryProblem(
  month: string,
  year: string,
  now: number,
): { field: 'month' | 'year'; words: Words } | null {
  const m = month.trim();
  const y = year.trim();
  if (!/^\d{1,2}$/.test(m) || Number(m) < 1 || Number(m) > 12)
    return { field: 'month', words: words('payment.err.expiryMonth') };
  if (!/^(\d{2}|\d{4})$/.test(y)) return { field: 'year', words: words('payment.err.expiryYear') };
  const fullYear = y.length === 2 ? 2000 + Number(y) : Number(y);
  const endOfMonth = Date.UTC(fullYear, Number(m), 1); // first instant of the following month
  if (endOfMonth <= now) return { field: 'month', words: words('payment.err.expired') };
  if (fullYear > new Date(now).getUTCFullYear() + 25) return { field: 'year', words: words('payment.err.expiryFar') };
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

/** Field name -> its problem in words. Names match the form (and the IPC request): "card.number", "amount", ... */
export type FieldErrors = Record<string, Words>;

/** Parses a decimal amount into minor units without float maths; null with a reason when it is not valid. */
export function parseAmount(text: string, exponent: number): { minor: number } | { error: Words } {
  const t = text.trim().replace(/,/g, '');
  if (!t) return { error: words('payment.err.amountRequired') };
  if (!DECIMAL.test(t)) return { error: words('payment.err.amountPlain') };
  const [whole = '0', frac = ''] = t.split('.');
  const f = frac.replace(/0+$/, '');
  if (f.length > exponent)
    return {
      error: exponent === 0 ? words('payment.err.amountNoDecimals') : words('payment.err.amountDecimals', { exponent }),
    };
  const digits = (whole + f.padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
  if (digits.length > 15) return { error: words('payment.err.amountTooLarge') };
  const minor = Number(digits);
  if (minor <= 0) return { error: words('payment.err.amountZero') };
  return { minor };
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
    if (!errors[key])
      errors[key] = words(issue.code === 'invalid_type' ? 'payment.err.required' : 'payment.err.invalid', {
        field: key,
      });
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
  if (!/^[A-Z]{3}$/.test(f.currency)) errors.currency = words('payment.err.currency');
  else if (!opts.limits) errors.currency = words('payment.err.noOption', { currency: f.currency });
  if (opts.limits) {
    const a = parseAmount(f.amount, opts.limits.exponent);
    if ('error' in a) errors.amount = a.error;
    else {
      const { minMinor, maxMinor, maxDailyMinor, collectedTodayMinor } = opts.limits;
      const remaining = Math.max(0, maxDailyMinor - collectedTodayMinor);
      const currency = f.currency;
      if (a.minor < minMinor) errors.amount = words('payment.err.amountMin', { minMinor, currency });
      else if (a.minor > maxMinor) errors.amount = words('payment.err.amountMax', { maxMinor, currency });
      else if (a.minor > remaining)
        errors.amount = words('payment.err.amountDaily', {
          remainingMinor: remaining,
          dailyMinor: maxDailyMinor,
          currency,
        });
      amountMinor = a.minor;
    }
  }

  const dlen = f.description.trim().length;
  if (dlen < 10 || dlen > 30) errors.description = words('payment.err.description', { length: dlen });
  if (f.customerEmail && !EMAIL.test(f.customerEmail)) errors.customerEmail = words('payment.err.email');

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
  if (!parsed.success) return { ok: false, errors: { card: words('payment.err.cardIncomplete') } };
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

/** A brand in a sentence: its own name ("JCB"), or the word for a card when the number says none yet. */
function brandValue(brand: ReturnType<typeof detectBrand>) {
  return brand === 'unknown' ? { brandId: 'payment.brand.unknown' as const } : { brand: BRAND_NAMES[brand] };
}

/** Each card field's name in a sentence ("billing city is required ..."). */
const CARD_LABELS: Record<keyof CardFields, MessageId> = {
  number: 'payment.field.number',
  expMonth: 'payment.field.expMonth',
  expYear: 'payment.field.expYear',
  cvv: 'payment.field.cvv',
  firstName: 'payment.field.firstName',
  lastName: 'payment.field.lastName',
  pin: 'payment.field.pin',
  billingAddress: 'payment.field.billingAddress',
  billingCity: 'payment.field.billingCity',
  billingZip: 'payment.field.billingZip',
  billingState: 'payment.field.billingState',
  billingCountry: 'payment.field.billingCountry',
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The card's rules: card.* field -> message. */
function cardErrors(c: CardFields, now: number): FieldErrors {
  const errors: FieldErrors = {};
  const compact = c.number.replace(/[\s-]/g, '');
  const brand = detectBrand(compact);
  if (!compact) errors['card.number'] = words('payment.err.numberRequired');
  else if (!/^\d+$/.test(compact)) errors['card.number'] = words('payment.err.numberDigits');
  else if (!numberLengths(brand).includes(compact.length))
    errors['card.number'] = words('payment.err.numberLength', {
      length: compact.length,
      ...brandValue(brand),
      lengths: numberLengths(brand).join(' / '),
    });
  else if (!luhnValid(compact)) errors['card.number'] = words('payment.err.numberLuhn');

  const exp = expiryProblem(c.expMonth, c.expYear, now);
  if (exp) errors[exp.field === 'year' ? 'card.expYear' : 'card.expMonth'] = exp.words;

  const cvv = c.cvv.trim();
  const want = cvvLength(brand);
  if (!/^\d+$/.test(cvv) || cvv.length !== want)
    errors['card.cvv'] = words('payment.err.cvv', { digits: want, ...brandValue(brand) });

  if (!c.firstName.trim()) errors['card.firstName'] = words('payment.err.firstName');
  else if (c.firstName.trim().length > 50) errors['card.firstName'] = words('payment.err.firstNameLong');
  if (!c.lastName.trim()) errors['card.lastName'] = words('payment.err.lastName');
  else if (c.lastName.trim().length > 50) errors['card.lastName'] = words('payment.err.lastNameLong');

  if (c.pin !== undefined && c.pin !== '' && !/^\d{4,6}$/.test(c.pin)) errors['card.pin'] = words('payment.err.pin');

  const country = (c.billingCountry ?? '').trim();
  if (country && !/^[A-Za-z]{2}$/.test(country)) errors['card.billingCountry'] = words('payment.err.country');
  if (billingRequired(country)) {
    const need: (keyof CardFields)[] = ['billingAddress', 'billingCity', 'billingZip', 'billingState'];
    for (const k of need) {
      const v = (c[k] as string | undefined)?.trim() ?? '';
      if (!v)
        errors[`card.${k}`] = words('payment.err.billingRequired', {
          fieldId: CARD_LABELS[k],
          country: country.toUpperCase(),
        });
    }
  }
  for (const k of ['billingAddress', 'billingCity', 'billingZip', 'billingState'] as const) {
    const v = c[k];
    if (v && v.length > 100 && !errors[`card.${k}`])
      errors[`card.${k}`] = words('payment.err.billingLong', { fieldId: CARD_LABELS[k] });
  }
  // A line break or other control character inside a name or address would reach the service as-is.
  for (const k of Object.keys(CARD_LABELS) as (keyof CardFields)[]) {
    const v = c[k];
    if (v && CONTROL.test(v.trim()) && !errors[`card.${k}`])
      errors[`card.${k}`] = words('payment.err.control', { fieldId: CARD_LABELS[k] });
  }
  return errors;
}
