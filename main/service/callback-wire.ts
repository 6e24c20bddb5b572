// A callback's wire shape (the service's POST to the desk, or a line of an imported file): the fields the
// signature covers kept as sent, amounts in minor units with their currency's decimals, the status
// upper-cased. Read without zod for the shape nearly every callback has (the hot path of serve and the
// receiver), and by the schema for anything else, so a bad field is still reported by name.
import { z } from 'zod';
import { currencyExponent, MoneyError, toMinor } from '../money/index.js';
import type { CallbackBody, SignedFields } from './types.js';
import { parseWire, wireAmount, wireBoolean, wireCurrency, wireText } from './wire-values.js';

/** A callback (or imported callback) parsed: raw strings kept for the signature, amounts in minor units. */
export interface ParsedCallback {
  event: string;
  /** The fields as sent, for signedString(). */
  signed: SignedFields;
  merchantReference: string;
  internalReference: string;
  /** Upper-cased, trimmed: decide by this, not by the event name (DESIGN.md). */
  transactionStatus: string;
  transactionType: string;
  id: string | undefined;
  requestCurrency: string | undefined;
  requestAmountMinor: number | undefined;
  transactionCurrency: string | undefined;
  transactionAmountMinor: number | undefined;
  transactionChargeMinor: number | undefined;
  totalCreditMinor: number | undefined;
  chargeCustomer: boolean | undefined;
  providerCode: string | undefined;
  customerName: string | undefined;
  statusMessage: string | undefined;
  /** The body exactly as received (JSON-decoded), for the audit trail. */
  raw: CallbackBody;
}

const callbackPayloadSchema = z.looseObject({
  id: wireText.nullish(),
  merchant_reference: wireText,
  internal_reference: wireText,
  transaction_type: wireText,
  transaction_status: wireText,
  request_currency: wireCurrency.nullish(),
  request_amount: wireAmount.nullish(),
  transaction_currency: wireCurrency.nullish(),
  transaction_amount: wireAmount.nullish(),
  transaction_charge: wireAmount.nullish(),
  total_credit: wireAmount.nullish(),
  charge_customer: wireBoolean.nullish(),
  provider_code: wireText.nullish(),
  customer_name: z.string().nullish(),
  status_message: z.string().nullish(),
});

const callbackBodySchema = z
  .looseObject({ event: wireText, payload: callbackPayloadSchema })
  .transform((b, ctx): ParsedCallback => {
    const p = b.payload;
    const amount = (v: unknown, currency: string | null | undefined, key: string, currencyKey: string) => {
      if (v === undefined || v === null) return undefined;
      if (!currency) {
        ctx.addIssue({ code: 'custom', message: `is given but ${currencyKey} is missing`, path: ['payload', key] });
        return undefined;
      }
      try {
        return toMinor(v, currency, key);
      } catch (e) {
        ctx.addIssue({
          code: 'custom',
          message: e instanceof MoneyError ? e.reason : String(e),
          path: ['payload', key],
        });
        return undefined;
      }
    };
    const parsed: ParsedCallback = {
      event: b.event,
      signed: {
        event: b.event,
        merchant_reference: p.merchant_reference,
        internal_reference: p.internal_reference,
        transaction_type: p.transaction_type,
        transaction_status: p.transaction_status,
      },
      merchantReference: p.merchant_reference,
      internalReference: p.internal_reference,
      transactionStatus: p.transaction_status.trim().toUpperCase(),
      transactionType: p.transaction_type,
      id: p.id ?? undefined,
      requestCurrency: p.request_currency ?? undefined,
      requestAmountMinor: amount(p.request_amount, p.request_currency, 'request_amount', 'request_currency'),
      transactionCurrency: p.transaction_currency ?? undefined,
      transactionAmountMinor: amount(
        p.transaction_amount,
        p.transaction_currency,
        'transaction_amount',
        'transaction_currency',
      ),
      transactionChargeMinor: amount(
        p.transaction_charge,
        p.transaction_currency,
        'transaction_charge',
        'transaction_currency',
      ),
      totalCreditMinor: amount(p.total_credit, p.transaction_currency, 'total_credit', 'transaction_currency'),
      chargeCustomer: p.charge_customer ?? undefined,
      providerCode: p.provider_code ?? undefined,
      customerName: p.customer_name ?? undefined,
      statusMessage: p.status_message ?? undefined,
      raw: undefined as unknown as CallbackBody, // set by parseCallbackBody to the body as received
    };
    if (ctx.issues.length > 0) return z.NEVER;
    return parsed;
  });

/** Parses a callback body (already JSON-decoded). Throws WireFormatError naming the field, e.g. "payload.total_credit". */
export function parseCallbackBody(value: unknown): ParsedCallback {
  return parseCommonCallback(value) ?? parseCallbackBodyWithSchema(value);
}

/** parseCallbackBody by the schema alone: the reference the written-out reading is tested against. */
export function parseCallbackBodyWithSchema(value: unknown): ParsedCallback {
  const parsed = parseWire(callbackBodySchema, value);
  return { ...parsed, raw: value as CallbackBody };
}

// The same reading as callbackBodySchema for the shape nearly every callback has, written out: the
// schema cost more than the rest of verifying a callback. It accepts only what the schema accepts and
// yields the same result (test/callbacks/wire-common-shape.test.ts compares them); at the first value it does not
// take as is, it returns null and the schema reads the body, so a bad field is still reported by name.
type Text = string | null | undefined;
const NOT_COMMON = Symbol('not the common shape');
function commonText(v: unknown): Text | typeof NOT_COMMON {
  if (v === undefined || v === null || typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return NOT_COMMON;
}
function commonCurrency(v: unknown): Text | typeof NOT_COMMON {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') return NOT_COMMON;
  const c = v.trim().toUpperCase();
  try {
    currencyExponent(c);
    return c;
  } catch {
    return NOT_COMMON;
  }
}
function commonAmount(v: unknown, currency: Text, key: string): number | undefined | typeof NOT_COMMON {
  if (v === undefined || v === null) return undefined;
  if (!currency || (typeof v !== 'number' && typeof v !== 'string')) return NOT_COMMON;
  try {
    return toMinor(v, currency, key);
  } catch {
    return NOT_COMMON;
  }
}
function parseCommonCallback(value: unknown): ParsedCallback | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const b = value as Record<string, unknown>;
  const p = b.payload as Record<string, unknown> | null | undefined;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return null;
  const event = commonText(b.event);
  const id = commonText(p.id);
  const merchantReference = commonText(p.merchant_reference);
  const internalReference = commonText(p.internal_reference);
  const transactionType = commonText(p.transaction_type);
  const transactionStatus = commonText(p.transaction_status);
  const providerCode = commonText(p.provider_code);
  const requestCurrency = commonCurrency(p.request_currency);
  const transactionCurrency = commonCurrency(p.transaction_currency);
  const customerName = p.customer_name;
  const statusMessage = p.status_message;
  if (
    typeof event !== 'string' ||
    typeof merchantReference !== 'string' ||
    typeof internalReference !== 'string' ||
    typeof transactionType !== 'string' ||
    typeof transactionStatus !== 'string' ||
    id === NOT_COMMON ||
    providerCode === NOT_COMMON ||
    requestCurrency === NOT_COMMON ||
    transactionCurrency === NOT_COMMON ||
    (customerName != null && typeof customerName !== 'string') ||
    (statusMessage != null && typeof statusMessage !== 'string')
  )
    return null;
  const requestAmountMinor = commonAmount(p.request_amount, requestCurrency, 'request_amount');
  const transactionAmountMinor = commonAmount(p.transaction_amount, transactionCurrency, 'transaction_amount');
  const transactionChargeMinor = commonAmount(p.transaction_charge, transactionCurrency, 'transaction_charge');
  const totalCreditMinor = commonAmount(p.total_credit, transactionCurrency, 'total_credit');
  if (
    requestAmountMinor === NOT_COMMON ||
    transactionAmountMinor === NOT_COMMON ||
    transactionChargeMinor === NOT_COMMON ||
    totalCreditMinor === NOT_COMMON
  )
    return null;
  let chargeCustomer: boolean | undefined;
  const cc = p.charge_customer;
  if (typeof cc === 'boolean') chargeCustomer = cc;
  else if (cc !== undefined && cc !== null) return null; // "true", 1, ...: the schema reads those
  return {
    event,
    signed: {
      event,
      merchant_reference: merchantReference,
      internal_reference: internalReference,
      transaction_type: transactionType,
      transaction_status: transactionStatus,
    },
    merchantReference,
    internalReference,
    transactionStatus: transactionStatus.trim().toUpperCase(),
    transactionType,
    id: id ?? undefined,
    requestCurrency: requestCurrency ?? undefined,
    requestAmountMinor,
    transactionCurrency: transactionCurrency ?? undefined,
    transactionAmountMinor,
    transactionChargeMinor,
    totalCreditMinor,
    chargeCustomer,
    providerCode: providerCode ?? undefined,
    customerName: customerName ?? undefined,
    statusMessage: statusMessage ?? undefined,
    raw: value as CallbackBody,
  };
}
