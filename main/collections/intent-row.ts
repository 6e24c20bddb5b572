// The row a charge's intent creates in `collections`, in one place: the charge path inserts it when
// it saves an intent, and team sync inserts the same row when another desktop's intent arrives.
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { collectionIdOf, insertIntentCollection, type IntentColumns } from '../store/sqlite/ledger/intent-rows.js';
import type { Ledger } from './ledger.js';
import { intentEventKey } from './event-key.js';

// Team sync inserts the same row when another desktop's intent arrives, and a snapshot's check reads it
// back in the same column order.
export { collectionIdByReference, insertIntentCollection, intentValues } from '../store/sqlite/ledger/intent-rows.js';

/**
 * Everything a collection starts with (status INTENT): the listed columns of its row, and where the
 * hosted page sends the customer back. Card data never: brand and last four only.
 */
export type CollectionIntent = IntentColumns;

/**
 * Saves an intent: its collection (status INTENT) and its intent_saved event, in one transaction;
 * returns the collection id. On a team profile the intent was committed in the team database first, and
 * this desktop's own sync may have applied it already (its notification can beat the charge path back
 * here): then the row is found and nothing is stored twice.
 */
export function saveIntentCollection(ledger: Pick<Ledger, 'append'>, db: Db, intent: CollectionIntent): number {
  return writeTransaction(db, () => {
    const id = collectionIdOf(db, intent.merchantReference) ?? insertIntentCollection(db, intent);
    ledger.append(db, {
      collectionId: id,
      merchantReference: intent.merchantReference,
      source: 'intent',
      kind: 'intent_saved',
      status: 'INTENT',
      receivedAt: intent.createdAt,
      signature: 'not_applicable',
      amountMinor: intent.amountMinor,
      currency: intent.currency,
      actor: intent.operator,
      dedupeKey: intentEventKey(intent.merchantReference),
    });
    return id;
  });
}
