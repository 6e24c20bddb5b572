// The service's answers' wire shapes (snake_case JSON): the envelope, balances, payment options and the
// initialize answer, validated with zod at the boundary and turned into Merchant Desk's own types
// (main/service/types.ts). Liberal about form: extra fields are ignored, numbers and booleans may arrive
// as strings (wire-values.ts). Strict about meaning: an amount with more decimals than its currency
// allows, an unknown currency or wallet type, a boolean that is neither true nor false is an error
// naming the field ("merchant_balances[2].available_balance"), never a guess or a rounding. A
// callback's shape is callback-wire.ts's.
import { z } from 'zod';
import type { PaymentOption, WalletBalance, WalletType } from './types.js';
import { describeValue, minorAt, wireAmount, wireBoolean, wireCurrency, wireText } from './wire-values.js';

/** An integer result code; "200" is accepted. */
const wireCode = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^\s*\d{3}\s*$/)
    .transform((s) => Number(s)),
]);

const WALLET_TYPES: readonly WalletType[] = ['MERCHANT_COLLECTION', 'MERCHANT_PAYOUT'];
const wireWalletType = z.string().transform((v, ctx): WalletType => {
  const t = v.trim().toUpperCase();
  if ((WALLET_TYPES as readonly string[]).includes(t)) return t as WalletType;
  ctx.addIssue({ code: 'custom', message: `${describeValue(v)} is not a wallet type (${WALLET_TYPES.join(' or ')})` });
  return z.NEVER;
});

// --- envelopes ---

/** `{code, status, message, data}`; judged together with the HTTP status by the client. */
export const envelopeSchema = z.looseObject({
  code: wireCode.optional(),
  status: z.string().optional(),
  message: z.string().nullish(),
  data: z.unknown().optional(),
});

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

const balanceRecordSchema = z
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

const providerRecordSchema = z
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

/** payment_url is taken as text here: whether the desk will open it is service-url.ts's one check. */
export const initializeDataSchema = z.looseObject({
  internal_reference: wireText.nullish(),
  merchant_reference: wireText.nullish(),
  payment_url: z.string(),
});
