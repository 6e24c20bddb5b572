// The card part of the Take payment form: number (grouped as typed, brand shown), expiry, CVV (length
// by brand), cardholder, optional PIN, billing address (required for USA, Canada and Europe), drawn from
// one table of field definitions (CARD_ROWS, BILLING_ROWS) that the request is built from too.
// The values live in the parent's state only while the form needs them; the parent clears them (usePaymentForm,
// Resend).
import { billingRequired } from '../../../../main/collections/card-input.shared.js';
import {
  BRAND_NAMES,
  cvvLength,
  detectBrand,
  digitsOnly,
  groupCardNumber,
} from '../../../../main/collections/card-number.shared.js';
import type { ChangeEvent, ReactNode } from 'react';
import { Field } from '../../ui/index.js';

/** Where the field's value comes from as the agent types it. */
type Input =
  /** Kept as typed. */
  | { kind: 'text' }
  /** Digits only, at most `max` of them (numeric keyboard). */
  | { kind: 'digits'; max: number }
  /** The card number, grouped by four as typed. */
  | { kind: 'card-number' }
  /** A country code, upper-cased. */
  | { kind: 'country' };

/** What the field says beside its input, given the card as typed. */
interface FieldContext {
  brand: ReturnType<typeof detectBrand>;
  brandName: string;
  needBilling: boolean;
}

/**
 * One card field: its key in the state and the request, its label and hint, how its input is read, and
 * whether the request leaves it out when empty. The form is drawn from this table, row by row.
 */
interface CardFieldDef {
  key: keyof typeof EMPTY_CARD;
  label: string;
  input: Input;
  /** Optional in the request (left out when empty). */
  optional?: boolean;
  /** Required when billing is (the label says so). */
  billing?: boolean;
  className?: string;
  maxLength?: number;
  placeholder?: string;
  hint?: (c: FieldContext) => ReactNode;
}

export const EMPTY_CARD = {
  number: '',
  expMonth: '',
  expYear: '',
  cvv: '',
  firstName: '',
  lastName: '',
  pin: '',
  billingCountry: '',
  billingAddress: '',
  billingCity: '',
  billingState: '',
  billingZip: '',
};

export type CardState = typeof EMPTY_CARD;

const CARD_ROWS: CardFieldDef[][] = [
  [
    {
      key: 'number',
      label: 'Card number',
      input: { kind: 'card-number' },
      className: 'card-number secret-ish',
      maxLength: 23,
      hint: ({ brand, brandName }) => (
        <span aria-live="polite" className={brandName ? `brand-tag brand-${brand}` : undefined}>
          {brandName ? `Brand: ${brandName}` : 'Brand shows as you type'}
        </span>
      ),
    },
  ],
  [
    {
      key: 'expMonth',
      label: 'Expiry month',
      input: { kind: 'digits', max: 2 },
      className: 'short',
      placeholder: 'MM',
      hint: () => 'MM',
    },
    {
      key: 'expYear',
      label: 'Expiry year',
      input: { kind: 'digits', max: 4 },
      className: 'short',
      placeholder: 'YY',
      hint: () => 'YY or YYYY',
    },
    {
      key: 'cvv',
      label: 'CVV',
      input: { kind: 'digits', max: 4 },
      className: 'short masked',
      hint: ({ brand, brandName }) => `${cvvLength(brand)} digits${brandName ? ` for ${brandName}` : ''}`,
    },
    {
      key: 'pin',
      label: 'PIN (optional)',
      input: { kind: 'digits', max: 6 },
      optional: true,
      className: 'short masked',
      hint: () => "4 to 6 digits, only if the customer's card needs one",
    },
  ],
  [
    { key: 'firstName', label: 'Cardholder first name', input: { kind: 'text' } },
    { key: 'lastName', label: 'Cardholder last name', input: { kind: 'text' } },
  ],
];

const BILLING_ROWS: CardFieldDef[][] = [
  [
    {
      key: 'billingCountry',
      label: 'Billing country',
      input: { kind: 'country' },
      optional: true,
      className: 'short',
      maxLength: 2,
      hint: () => '2-letter code, e.g. US, CA, DE, UG',
    },
    { key: 'billingAddress', label: 'Billing street address', input: { kind: 'text' }, optional: true, billing: true },
  ],
  [
    { key: 'billingCity', label: 'Billing city', input: { kind: 'text' }, optional: true, billing: true },
    { key: 'billingState', label: 'Billing state', input: { kind: 'text' }, optional: true, billing: true },
    {
      key: 'billingZip',
      label: 'Billing zip or postal code',
      input: { kind: 'text' },
      optional: true,
      billing: true,
      className: 'short',
    },
  ],
];

const FIELDS: CardFieldDef[] = [...CARD_ROWS, ...BILLING_ROWS].flat();

/** The value the request carries for a field as typed. */
function requestValue(def: CardFieldDef, v: string): string {
  if (def.input.kind === 'card-number') return digitsOnly(v);
  if (def.input.kind === 'country') return v.trim().toUpperCase();
  return v.trim();
}

/** The card object for the IPC request (optional fields left out when empty). */
export function cardRequest(c: CardState) {
  const out: Record<string, string> = {};
  for (const def of FIELDS) {
    const v = requestValue(def, c[def.key]);
    if (v || !def.optional) out[def.key] = v;
  }
  return out as {
    number: string;
    expMonth: string;
    expYear: string;
    cvv: string;
    firstName: string;
    lastName: string;
  } & Partial<
    Record<'pin' | 'billingCountry' | 'billingAddress' | 'billingCity' | 'billingState' | 'billingZip', string>
  >;
}

/** Overwrites every field of a card request object once it has been handed over. */
export function wipe(o: Record<string, unknown>): void {
  for (const k of Object.keys(o)) if (typeof o[k] === 'string') o[k] = '';
}

/** What the input holds after the agent typed `raw` into it. */
function typed(def: CardFieldDef, raw: string): string {
  switch (def.input.kind) {
    case 'digits':
      return digitsOnly(raw).slice(0, def.input.max);
    case 'card-number':
      return groupCardNumber(raw);
    case 'country':
      return raw.toUpperCase();
    case 'text':
      return raw;
  }
}

export function CardSection({
  card,
  onChange,
  errorFor,
  disabled,
}: {
  card: CardState;
  onChange: (patch: Partial<CardState>, field: string) => void;
  errorFor: (name: string) => string | undefined;
  disabled?: boolean;
}) {
  const brand = detectBrand(card.number);
  const ctx: FieldContext = {
    brand,
    brandName: digitsOnly(card.number) ? BRAND_NAMES[brand] : '',
    needBilling: billingRequired(card.billingCountry),
  };
  const field = (def: CardFieldDef) => {
    const name = `card.${def.key}`;
    const required = Boolean(def.billing) && ctx.needBilling;
    return (
      <Field
        key={def.key}
        label={required ? `${def.label} (required)` : def.label}
        error={errorFor(name)}
        hint={def.hint?.(ctx)}
      >
        <input
          name={name}
          className={def.className}
          inputMode={def.input.kind === 'digits' || def.input.kind === 'card-number' ? 'numeric' : undefined}
          autoComplete="off"
          spellCheck={def.input.kind === 'card-number' ? false : undefined}
          maxLength={def.maxLength}
          placeholder={def.placeholder}
          required={def.billing ? ctx.needBilling : undefined}
          value={card[def.key]}
          onChange={(e: ChangeEvent<HTMLInputElement>) => onChange({ [def.key]: typed(def, e.target.value) }, name)}
        />
      </Field>
    );
  };
  const rows = (list: CardFieldDef[][]) =>
    list.map((row) => (
      <div className="row" key={row.map((d) => d.key).join()}>
        {row.map(field)}
      </div>
    ));

  return (
    <fieldset className="form-group" disabled={disabled}>
      <legend>Card</legend>
      {rows(CARD_ROWS)}
      <fieldset className="form-group nested">
        <legend>Billing address</legend>
        <p className="field-hint" id="billing-note" aria-live="polite">
          {ctx.needBilling
            ? `Required: cards billed in ${card.billingCountry.trim().toUpperCase()} need the full billing address.`
            : 'Required when the billing country is the USA, Canada or a European country.'}
        </p>
        {rows(BILLING_ROWS)}
      </fieldset>
    </fieldset>
  );
}
