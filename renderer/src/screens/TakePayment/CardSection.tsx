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
import { useWords, type Say } from '../../words/index.js';
import type { MessageId } from '../../../../main/words/words.shared.js';

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
  label: MessageId;
  input: Input;
  /** Optional in the request (left out when empty). */
  optional?: boolean;
  /** Required when billing is (the label says so). */
  billing?: boolean;
  className?: string;
  maxLength?: number;
  placeholder?: MessageId;
  hint?: (c: FieldContext, t: Say['t']) => ReactNode;
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
      label: 'payment.label.number',
      input: { kind: 'card-number' },
      className: 'card-number secret-ish',
      maxLength: 23,
      hint: ({ brand, brandName }, t) => (
        <span aria-live="polite" className={brandName ? `brand-tag brand-${brand}` : undefined}>
          {brandName ? t('payment.hint.brand', { brand: brandName }) : t('payment.hint.brandLater')}
        </span>
      ),
    },
  ],
  [
    {
      key: 'expMonth',
      label: 'payment.label.expMonth',
      input: { kind: 'digits', max: 2 },
      className: 'short',
      placeholder: 'payment.placeholder.month',
      hint: (_, t) => t('payment.hint.month'),
    },
    {
      key: 'expYear',
      label: 'payment.label.expYear',
      input: { kind: 'digits', max: 4 },
      className: 'short',
      placeholder: 'payment.placeholder.year',
      hint: (_, t) => t('payment.hint.year'),
    },
    {
      key: 'cvv',
      label: 'payment.label.cvv',
      input: { kind: 'digits', max: 4 },
      className: 'short masked',
      hint: ({ brand, brandName }, t) =>
        brandName
          ? t('payment.hint.cvvFor', { digits: cvvLength(brand), brand: brandName })
          : t('payment.hint.cvv', { digits: cvvLength(brand) }),
    },
    {
      key: 'pin',
      label: 'payment.label.pin',
      input: { kind: 'digits', max: 6 },
      optional: true,
      className: 'short masked',
      hint: (_, t) => t('payment.hint.pin'),
    },
  ],
  [
    { key: 'firstName', label: 'payment.label.firstName', input: { kind: 'text' } },
    { key: 'lastName', label: 'payment.label.lastName', input: { kind: 'text' } },
  ],
];

const BILLING_ROWS: CardFieldDef[][] = [
  [
    {
      key: 'billingCountry',
      label: 'payment.label.billingCountry',
      input: { kind: 'country' },
      optional: true,
      className: 'short',
      maxLength: 2,
      hint: (_, t) => t('payment.hint.country'),
    },
    {
      key: 'billingAddress',
      label: 'payment.label.billingAddress',
      input: { kind: 'text' },
      optional: true,
      billing: true,
    },
  ],
  [
    { key: 'billingCity', label: 'payment.label.billingCity', input: { kind: 'text' }, optional: true, billing: true },
    {
      key: 'billingState',
      label: 'payment.label.billingState',
      input: { kind: 'text' },
      optional: true,
      billing: true,
    },
    {
      key: 'billingZip',
      label: 'payment.label.billingZip',
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
  const { t } = useWords();
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
        label={required ? t('payment.required', { label: t(def.label) }) : t(def.label)}
        error={errorFor(name)}
        hint={def.hint?.(ctx, t)}
      >
        <input
          name={name}
          className={def.className}
          inputMode={def.input.kind === 'digits' || def.input.kind === 'card-number' ? 'numeric' : undefined}
          autoComplete="off"
          spellCheck={def.input.kind === 'card-number' ? false : undefined}
          maxLength={def.maxLength}
          placeholder={def.placeholder && t(def.placeholder)}
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
      <legend>{t('payment.card')}</legend>
      {rows(CARD_ROWS)}
      <fieldset className="form-group nested">
        <legend>{t('payment.billing')}</legend>
        <p className="field-hint" id="billing-note" aria-live="polite">
          {ctx.needBilling
            ? t('payment.billingRequiredFor', { country: card.billingCountry.trim().toUpperCase() })
            : t('payment.billingWhen')}
        </p>
        {rows(BILLING_ROWS)}
      </fieldset>
    </fieldset>
  );
}
