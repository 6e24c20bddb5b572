// How much a currency has collected since a moment: the daily limit's "collected today" (the payment
// form, the card options view, the charge's checks).
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { intValue } from '../../columns.js';

/** Sum (minor units) of COMPLETED and PENDING collections in `currency` created at or after `from` (ms). */
export function collectedSince(db: ReadDb, currency: string, from: number): number {
  const total = readStatement(
    db,
    `SELECT coalesce(sum(amount_minor), 0) AS total FROM collections
       WHERE currency = ? AND created_at >= ? AND status IN ('COMPLETED', 'PENDING')`,
    'pluck',
  ).get(currency.toUpperCase(), from);
  return intValue(total, 'total');
}
