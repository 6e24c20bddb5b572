// The card options the payment form offers: from the cached payment options (store/sqlite/payment-options.ts
// writes them), the active card collection option of each currency.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { PaymentOption } from '../../../service/types.js';

/** Currencies with an active card collection option (one row per cached option). */
export function cardOptionCurrencies(db: ReadDb): string[] {
  return (
    readStatement(
      db,
      `SELECT currency FROM payment_options WHERE upper(transaction_method) = 'CARD' AND is_active = 1 AND upper(transaction_type) = 'COLLECTION'`,
    ).all() as { currency: string }[]
  ).map((r) => r.currency);
}

/** The cached active card option of a currency (the first by provider code), or null. */
export function cachedCardOption(db: ReadDb, currency: string): PaymentOption | null {
  const r = readStatement(
    db,
    `SELECT * FROM payment_options WHERE currency = ? AND upper(transaction_method) = 'CARD' AND is_active = 1
         AND upper(transaction_type) = 'COLLECTION' ORDER BY provider_code LIMIT 1`,
  ).get(currency) as Record<string, unknown> | undefined;
  if (!r) return null;
  return {
    providerName: String(r.provider_name),
    providerCode: String(r.provider_code),
    transactionMethod: String(r.transaction_method),
    transactionMethodName: String(r.transaction_method_name),
    transactionType: String(r.transaction_type),
    currency: String(r.currency),
    minMinor: Number(r.min_minor),
    maxMinor: Number(r.max_minor),
    maxDailyMinor: Number(r.max_daily_minor),
    isActive: !!r.is_active,
    optionPrefixes: [],
  };
}
