// The currencies this merchant actually has (the filters' choices): those of its collections and of its
// wallets, sorted.
import type { ReadDb } from '../connection.js';
import { readStatement } from '../statements.js';
import { texts } from '../../columns.js';

/**
 * The collections part walks the (currency, ...) index one distinct value at a time, so it stays cheap
 * on a million rows.
 */
export function knownCurrencies(db: ReadDb): string[] {
  const fromCollections = texts(
    readStatement(
      db,
      `WITH RECURSIVE cur(c) AS (
         SELECT MIN(currency) FROM collections
         UNION ALL
         SELECT (SELECT MIN(currency) FROM collections WHERE currency > cur.c) FROM cur WHERE cur.c IS NOT NULL
       )
       SELECT c FROM cur WHERE c IS NOT NULL`,
      'pluck',
    ).all(),
    'currency',
  );
  const fromWallets = texts(
    readStatement(db, 'SELECT DISTINCT currency FROM balance_wallets', 'pluck').all(),
    'currency',
  );
  return [...new Set([...fromCollections, ...fromWallets])].sort();
}
