// Validation of POST /collections/initialize: every rule of the interface, in request order; the
// first failure answers with the error envelope naming the field. Nothing is stored here.
import type crypto from 'node:crypto';
import { CURRENCY_CODE, isKnownCurrency, MoneyError, toMinor, displayMinor } from '../main/money/index.js';
import { ApiError, badField, missingField } from './envelope.js';
import { readCardCipher, type CardSummary } from './card.js';
import { cardOption, type OptionDef } from './options.js';

export interface ValidRequest {
  merchantReference: string | 'auto';
  currency: string;
  amountMinor: number;
  description: string;
  redirectUrl: string;
  customerName: string | null;
  customerEmail: string | null;
  chargeCustomer: boolean;
  allowFinalStatusChange: boolean;
  option: OptionDef;
  card: CardSummary;
}

export interface InitializeContext {
  heldCurrencies: Set<string>;
  /** Amount (minor) already taken today on this option's currency. */
  usedToday(currency: string): number;
  /** Throws the duplicate answer when the reference exists. */
  checkDuplicate(reference: string): void;
  privateKey: crypto.KeyObject;
  now: number;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function validateInitialize(raw: unknown, ctx: InitializeContext): ValidRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ApiError(400, 'the request body must be a JSON object with the collection request fields');
  }
  const body = raw as Record<string, unknown>;
  const present = (k: string) => body[k] !== undefined && body[k] !== null;

  // merchant_reference
  if (!present('merchant_reference')) throw missingField('merchant_reference');
  const ref = body.merchant_reference;
  if (typeof ref !== 'string') throw badField('merchant_reference', 'merchant_reference must be a string');
  if (ref !== 'auto') {
    if (ref.length < 8) {
      throw badField('merchant_reference', 'merchant_reference must be at least 8 characters, or "auto"');
    }
    if (ref.length > 100) throw badField('merchant_reference', 'merchant_reference must be at most 100 characters');
    if (!/^[\x21-\x7e]+$/.test(ref)) {
      throw badField('merchant_reference', 'merchant_reference must be printable ASCII without spaces');
    }
    ctx.checkDuplicate(ref);
  }

  // transaction_method
  if (!present('transaction_method')) throw missingField('transaction_method');
  if (body.transaction_method !== 'CARD') {
    throw badField('transaction_method', 'transaction_method must be CARD for a card collection');
  }

  // currency
  if (!present('currency')) throw missingField('currency');
  const currency = body.currency;
  if (typeof currency !== 'string' || !CURRENCY_CODE.test(currency) || !isKnownCurrency(currency)) {
    throw badField('currency', 'currency must be a 3-letter ISO 4217 code in capitals, e.g. UGX');
  }
  if (!ctx.heldCurrencies.has(currency)) {
    throw badField('currency', `currency ${currency} is not held by this merchant account`);
  }
  const option = cardOption(currency);
  if (!option || !option.is_active) {
    throw badField('currency', `currency ${currency} has no active card payment option`);
  }

  // amount
  if (!present('amount')) throw missingField('amount');
  if (typeof body.amount !== 'number') throw badField('amount', 'amount must be a JSON number');
  let amountMinor: number;
  try {
    amountMinor = toMinor(body.amount, currency, 'amount');
  } catch (e) {
    if (e instanceof MoneyError) throw badField('amount', `amount ${e.reason}`);
    throw e;
  }
  if (amountMinor <= 0) throw badField('amount', 'amount must be greater than 0');
  if (amountMinor < option.minMinor) {
    throw badField('amount', `amount must be at least ${displayMinor(option.minMinor, currency)}`);
  }
  if (amountMinor > option.maxMinor) {
    throw badField('amount', `amount must be at most ${displayMinor(option.maxMinor, currency)}`);
  }
  const remaining = option.maxDailyMinor - ctx.usedToday(currency);
  if (amountMinor > remaining) {
    throw badField(
      'amount',
      `amount exceeds the remaining daily total for card in ${currency} (${displayMinor(Math.max(0, remaining), currency)} left today)`,
    );
  }

  // description
  if (!present('description')) throw missingField('description');
  const description = body.description;
  if (typeof description !== 'string') throw badField('description', 'description must be a string');
  const dlen = [...description.trim()].length;
  if (dlen < 10 || dlen > 30) {
    throw badField('description', `description must be 10 to 30 characters (it has ${dlen})`);
  }

  // redirect_url
  if (!present('redirect_url')) throw missingField('redirect_url');
  const redirect = body.redirect_url;
  if (typeof redirect !== 'string') throw badField('redirect_url', 'redirect_url must be a string');
  let url: URL;
  try {
    url = new URL(redirect);
  } catch {
    throw badField('redirect_url', 'redirect_url must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw badField('redirect_url', 'redirect_url must be an https URL');
  if (url.username || url.password) {
    throw badField('redirect_url', 'redirect_url must not contain a user name or password');
  }

  // optional fields
  const customerName = optionalString(body, 'customer_name', 100);
  const customerEmail = optionalString(body, 'customer_email', 254);
  if (customerEmail !== null && !EMAIL.test(customerEmail)) {
    throw badField('customer_email', 'customer_email must be an e-mail address');
  }
  const chargeCustomer = optionalBoolean(body, 'charge_customer', false);
  const allowFinalStatusChange = optionalBoolean(body, 'allow_final_status_change', true);

  // card_cipher last: decrypting is the expensive part.
  const card = readCardCipher(ctx.privateKey, body.card_cipher, new Date(ctx.now));

  return {
    merchantReference: ref,
    currency,
    amountMinor,
    description: description.trim(),
    redirectUrl: url.toString(),
    customerName,
    customerEmail,
    chargeCustomer,
    allowFinalStatusChange,
    option,
    card,
  };
}

function optionalString(body: Record<string, unknown>, field: string, max: number): string | null {
  const v = body[field];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw badField(field, `${field} must be a string`);
  if (v.length > max) throw badField(field, `${field} must be at most ${max} characters`);
  return v;
}

function optionalBoolean(body: Record<string, unknown>, field: string, dflt: boolean): boolean {
  const v = body[field];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw badField(field, `${field} must be true or false`);
  return v;
}
