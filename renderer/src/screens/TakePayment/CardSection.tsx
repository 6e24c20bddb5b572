// The card part of the Take payment form: number (grouped as typed, brand shown), expiry, CVV (length
// by brand), cardholder, optional PIN, billing address (required for USA, Canada and Europe).
// The values live in the parent's state only while the form needs them; the parent clears them on submit.
import {
  BRAND_NAMES,
  billingRequired,
  cvvLength,
  detectBrand,
  digitsOnly,
  groupCardNumber,
} from '../../../../main/collections/card-input.shared.js';
import type { ChangeEvent } from 'react';
import { Field } from '../../ui/index.js';

export interface CardState {
  number: string;
  expMonth: string;
  expYear: string;
  cvv: string;
  firstName: string;
  lastName: string;
  pin: string;
  billingCountry: string;
  billingAddress: string;
  billingCity: string;
  billingState: string;
  billingZip: string;
}

export const EMPTY_CARD: CardState = {
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

/** The card object for the IPC request (optional fields left out when empty). */
export function cardRequest(c: CardState) {
  const opt = (v: string) => (v.trim() ? v.trim() : undefined);
  const out = {
    number: digitsOnly(c.number),
    expMonth: c.expMonth.trim(),
    expYear: c.expYear.trim(),
    cvv: c.cvv.trim(),
    firstName: c.firstName.trim(),
    lastName: c.lastName.trim(),
    pin: opt(c.pin),
    billingCountry: opt(c.billingCountry)?.toUpperCase(),
    billingAddress: opt(c.billingAddress),
    billingCity: opt(c.billingCity),
    billingState: opt(c.billingState),
    billingZip: opt(c.billingZip),
  };
  for (const k of Object.keys(out) as (keyof typeof out)[]) if (out[k] === undefined) delete out[k];
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
  const brandName = digitsOnly(card.number) ? BRAND_NAMES[brand] : '';
  const cvvLen = cvvLength(brand);
  const needBilling = billingRequired(card.billingCountry);
  const req = (label: string) => (needBilling ? `${label} (required)` : label);
  const set = (k: keyof CardState) => (e: ChangeEvent<HTMLInputElement>) =>
    onChange({ [k]: e.target.value }, `card.${k}`);
  const digits = (k: keyof CardState, max: number) => (e: ChangeEvent<HTMLInputElement>) =>
    onChange({ [k]: digitsOnly(e.target.value).slice(0, max) }, `card.${k}`);

  return (
    <fieldset className="form-group" disabled={disabled}>
      <legend>Card</legend>
      <div className="row">
        <Field
          label="Card number"
          error={errorFor('card.number')}
          hint={
            <span aria-live="polite" className={brandName ? `brand-tag brand-${brand}` : undefined}>
              {brandName ? `Brand: ${brandName}` : 'Brand shows as you type'}
            </span>
          }
        >
          <input
            name="card.number"
            className="card-number secret-ish"
            inputMode="numeric"
            autoComplete="off"
            spellCheck={false}
            value={card.number}
            maxLength={23}
            onChange={(e) => onChange({ number: groupCardNumber(e.target.value) }, 'card.number')}
          />
        </Field>
      </div>
      <div className="row">
        <Field label="Expiry month" error={errorFor('card.expMonth')} hint="MM">
          <input
            name="card.expMonth"
            className="short"
            inputMode="numeric"
            autoComplete="off"
            value={card.expMonth}
            onChange={digits('expMonth', 2)}
            placeholder="MM"
          />
        </Field>
        <Field label="Expiry year" error={errorFor('card.expYear')} hint="YY or YYYY">
          <input
            name="card.expYear"
            className="short"
            inputMode="numeric"
            autoComplete="off"
            value={card.expYear}
            onChange={digits('expYear', 4)}
            placeholder="YY"
          />
        </Field>
        <Field
          label="CVV"
          error={errorFor('card.cvv')}
          hint={`${cvvLen} digits${brandName ? ` for ${brandName}` : ''}`}
        >
          <input
            name="card.cvv"
            className="short masked"
            inputMode="numeric"
            autoComplete="off"
            value={card.cvv}
            onChange={digits('cvv', 4)}
          />
        </Field>
        <Field
          label="PIN (optional)"
          error={errorFor('card.pin')}
          hint="4 to 6 digits, only if the customer's card needs one"
        >
          <input
            name="card.pin"
            className="short masked"
            inputMode="numeric"
            autoComplete="off"
            value={card.pin}
            onChange={digits('pin', 6)}
          />
        </Field>
      </div>
      <div className="row">
        <Field label="Cardholder first name" error={errorFor('card.firstName')}>
          <input name="card.firstName" autoComplete="off" value={card.firstName} onChange={set('firstName')} />
        </Field>
        <Field label="Cardholder last name" error={errorFor('card.lastName')}>
          <input name="card.lastName" autoComplete="off" value={card.lastName} onChange={set('lastName')} />
        </Field>
      </div>
      <fieldset className="form-group nested">
        <legend>Billing address</legend>
        <p className="field-hint" id="billing-note" aria-live="polite">
          {needBilling
            ? `Required: cards billed in ${card.billingCountry.trim().toUpperCase()} need the full billing address.`
            : 'Required when the billing country is the USA, Canada or a European country.'}
        </p>
        <div className="row">
          <Field
            label="Billing country"
            error={errorFor('card.billingCountry')}
            hint="2-letter code, e.g. US, CA, DE, UG"
          >
            <input
              name="card.billingCountry"
              className="short"
              autoComplete="off"
              maxLength={2}
              value={card.billingCountry}
              onChange={(e) => onChange({ billingCountry: e.target.value.toUpperCase() }, 'card.billingCountry')}
            />
          </Field>
          <Field label={req('Billing street address')} error={errorFor('card.billingAddress')}>
            <input
              name="card.billingAddress"
              autoComplete="off"
              required={needBilling}
              value={card.billingAddress}
              onChange={set('billingAddress')}
            />
          </Field>
        </div>
        <div className="row">
          <Field label={req('Billing city')} error={errorFor('card.billingCity')}>
            <input
              name="card.billingCity"
              autoComplete="off"
              required={needBilling}
              value={card.billingCity}
              onChange={set('billingCity')}
            />
          </Field>
          <Field label={req('Billing state')} error={errorFor('card.billingState')}>
            <input
              name="card.billingState"
              autoComplete="off"
              required={needBilling}
              value={card.billingState}
              onChange={set('billingState')}
            />
          </Field>
          <Field label={req('Billing zip or postal code')} error={errorFor('card.billingZip')}>
            <input
              name="card.billingZip"
              className="short"
              autoComplete="off"
              required={needBilling}
              value={card.billingZip}
              onChange={set('billingZip')}
            />
          </Field>
        </div>
      </fieldset>
    </fieldset>
  );
}
