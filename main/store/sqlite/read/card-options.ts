// The card options the payment form offers: from the cached payment options (store/sqlite/payment-options.ts
// writes them), the active card collection option of each currency.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import type { PaymentOption } from '../../../service/types.js';
import { maybe, texts } from '../../columns.js';
import { paymentOptionRowOf } from '../payment-options.js';

/** Currencies with an active card collection option (one row per cached option). */
export function cardOptionCurrencies(db: ReadDb): string[] {
  return texts(
    readStatement(
      db,
      `SELECT currency FROM payment_options WHERE upper(transaction_method) = 'CARD' AND is_active = 1 AND upper(transaction_type) = 'COLLECTION'`,
      'pluck',
    ).all(),
    'currency',
  );
}

/** The cached active card option of a currency (the first by provider code), or null. */
export function cachedCardOption(db: ReadDb, currency: string): PaymentOption | null {
  const r = readStatement(
    db,
    `SELECT * FROM payment_options WHERE currency = ? AND upper(transaction_method) = 'CARD' AND is_active = 1
         AND upper(transaction_type) = 'COLLECTION' ORDER BY provider_code LIMIT 1`,
  ).get(currency);
  return maybe(r, paymentOptionRowOf) ?? null;
}
