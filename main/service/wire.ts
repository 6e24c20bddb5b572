// The service's wire shapes (snake_case JSON), validated with zod at the boundary and turned into
// Merchant Desk's own types (main/service/types.ts). Liberal about form: extra fields are ignored,
// numbers and booleans may arrive as strings. Strict about meaning: an amount with more decimals than
// its currency allows, an unknown currency or wallet type, a boolean that is neither true nor false
// is an error naming the field ("merchant_balances[2].available_balance"), never a guess or a rounding.
import { z } from 'zod';
import { currencyExponent, MoneyError, toMinor } from '../money/index.js';
import { WireFormatError } from './errors.js';
import type { CallbackBody, PaymentOption, SignedFields, WalletBalance, WalletType } from './types.js';

// --- building blocks ---

/** A number, or a string holding one ("1500.50"). Kept as given; converted with the currency later. */
const wireAmount = z.union([z.number(), z.string()], { error: 'must be a number' });

/** A string; a number is accepted and written as text (references, codes). */
const wireText = z.union([z.string(), z.number().transform((n) => String(n))], { error: 'must be a string' });

/** true/false, "true"/"false" (any case), 1/0, "1"/"0". Anything else is an error, not a falsy guess. */
export const wireBoolean = z.union([z.boolean(), z.string(), z.number()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const t = String(v).trim().toLowerCase();
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  ctx.addIssue({ code: 'custom', message: `must be true or false, got ${describeValue(v)}` });
  return z.NEVER;
});

/** An integer result code; "200" is accepted. */
const wireCode = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^\s*\d{3}\s*$/)
    .transform((s) => Number(s)),
]);

/** A currency code known to main/money (its exponent decides how amounts are read). Upper-cased. */
const wireCurrency = z.string().transform((v, ctx) => {
  const c = v.trim().toUpperCase();
  try {
    currencyExponent(c);
    return c;
  } catch {
    ctx.addIssue({ code: 'custom', message: `unknown currency code ${describeValue(v)}` });
    return z.NEVER;
  }
});

const WALLET_TYPES: readonly WalletType[] = ['MERCHANT_COLLECTION', 'MERCHANT_PAYOUT'];
const wireWalletType = z.string().transform((v, ctx): WalletType => {
  const t = v.trim().toUpperCase();
  if ((WALLET_TYPES as readonly string[]).includes(t)) return t as WalletType;
  ctx.addIssue({ code: 'custom', message: `${describeValue(v)} is not a wallet type (${WALLET_TYPES.join(' or ')})` });
  return z.NEVER;
});

/** Converts `obj[key]` with `currency` into minor units, reporting a failure at `key`. */
function minorAt(ctx: z.core.$RefinementCtx, value: unknown, currency: string, key: string): number | undefined {
  try {
    return toMinor(value, currency, key);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: e instanceof MoneyError ? e.reason : String(e), path: [key] });
    return undefined;
  }
}

// --- envelopes ---

/** `{code, status, message, data}`; judged together with the HTTP status by the client. */
export const envelopeSchema = z.looseObject({
  code: wireCode.optional(),
  status: z.string().optional(),
  message: z.string().nullish(),
  data: z.unknown().optional(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/** `data` of an error envelope: `{field}` for a bad field; a duplicate reference also carries the existing collection. */
export const errorDataSchema = z
  .looseObject({
    field: wireText.optional(),
    internal_reference: wireText.optional(),
    payment_url: z.string().optional(),
    merchant_reference: wireText.optional(),
  })
  .nullish()
  .catch(null);

// --- balances ---

export const balanceRecordSchema = z
  .looseObject({
    available_balance: wireAmount,
    actual_balance: wireAmount,
    uncleared_balance: wireAmount,
    reserve_balance: wireAmount,
    currency: wireCurrency,
    wallet_type: wireWalletType,
  })
  .transform((r, ctx): WalletBalance => {
    const availableMinor = minorAt(ctx, r.available_balance, r.currency, 'available_balance');
    const actualMinor = minorAt(ctx, r.actual_balance, r.currency, 'actual_balance');
    const unclearedMinor = minorAt(ctx, r.uncleared_balance, r.currency, 'uncleared_balance');
    const reserveMinor = minorAt(ctx, r.reserve_balance, r.currency, 'reserve_balance');
    if (
      availableMinor === undefined ||
      actualMinor === undefined ||
      unclearedMinor === undefined ||
      reserveMinor === undefined
    ) {
      return z.NEVER;
    }
    return {
      currency: r.currency,
      walletType: r.wallet_type,
      availableMinor,
      actualMinor,
      unclearedMinor,
      reserveMinor,
    };
  });

export const balancesDataSchema = z.looseObject({
  merchant_balances: z
    .array(balanceRecordSchema)
    .nullable()
    .transform((a) => a ?? []),
});

// --- payment options ---

const wirePrefixes = z
  .union([z.array(wireText), z.string(), z.null()])
  .optional()
  .transform((v): string[] => {
    if (v === undefined || v === null) return [];
    if (typeof v === 'string')
      return v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    return v;
  });

export const providerRecordSchema = z
  .looseObject({
    provider_name: wireText,
    provider_code: wireText,
    transaction_method: wireText,
    transaction_method_name: wireText.nullish(),
    transaction_type: wireText,
    transaction_currency: wireCurrency,
    min_amount: wireAmount,
    max_amount: wireAmount,
    max_daily_amount: wireAmount,
    is_active: wireBoolean,
    option_prefixes: wirePrefixes,
  })
  .transform((r, ctx): PaymentOption => {
    const minMinor = minorAt(ctx, r.min_amount, r.transaction_currency, 'min_amount');
    const maxMinor = minorAt(ctx, r.max_amount, r.transaction_currency, 'max_amount');
    const maxDailyMinor = minorAt(ctx, r.max_daily_amount, r.transaction_currency, 'max_daily_amount');
    if (minMinor === undefined || maxMinor === undefined || maxDailyMinor === undefined) return z.NEVER;
    return {
      providerName: r.provider_name,
      providerCode: r.provider_code,
      transactionMethod: r.transaction_method,
      transactionMethodName: r.transaction_method_name ?? '',
      transactionType: r.transaction_type,
      currency: r.transaction_currency,
      minMinor,
      maxMinor,
      maxDailyMinor,
      isActive: r.is_active,
      optionPrefixes: r.option_prefixes,
    };
  });

export const providersDataSchema = z.looseObject({
  payment_providers: z
    .array(providerRecordSchema)
    .nullable()
    .transform((a) => a ?? []),
});

// --- initialize ---

const httpUrl = z.string().refine(
  (s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      return false;
    }
  },
  { message: 'must be an http(s) URL' },
);

export const initializeDataSchema = z.looseObject({
  internal_reference: wireText.nullish(),
  merchant_reference: wireText.nullish(),
  payment_url: httpUrl,
});

// --- callback ---

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

// --- parsing helpers ---

/** Parses `value` with `schema`; on failure throws WireFormatError naming the first bad field. */
export function parseWire<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const first = r.error.issues[0]!;
  throw new WireFormatError(formatPath(first.path) || '(body)', issueMessage(first, value), r.error.issues.length);
}

/** ['merchant_balances', 2, 'available_balance'] -> "merchant_balances[2].available_balance". */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += (out === '' ? '' : '.') + String(p);
  }
  return out;
}

function issueMessage(issue: z.core.$ZodIssue, root: unknown): string {
  if (issue.code === 'custom') return issue.message;
  // Say "is missing" rather than zod's "expected string, received undefined".
  let v: unknown = root;
  for (const p of issue.path)
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  if (v === undefined) return 'is missing';
  if (issue.code === 'invalid_type') return `must be ${article(issue.expected)}, got ${describeValue(v)}`;
  if (issue.code === 'invalid_union')
    return `${issue.message.replace(/^Invalid input:?\s*/i, '') || 'has the wrong type'}, got ${describeValue(v)}`;
  return issue.message;
}

function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

/** A short, safe description of a service value for a message: type and a clipped rendering. */
function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  return String(v);
}
