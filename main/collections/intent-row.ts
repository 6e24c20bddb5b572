// The row a charge's intent creates in `collections`, in one place: the charge path inserts it when
// it saves an intent, and team sync inserts the same row when another desktop's intent arrives.
import type { Db } from '../store/sqlite/connection.js';
import { writeTransaction } from '../store/sqlite/transaction.js';
import { appendEvent } from './ledger.js';
import { intentEventKey } from './event-key.js';
import type { CollectionRow } from './query.js';

/**
 * Everything a collection starts with (status INTENT): the listed columns of its row, and where the
 * hosted page sends the customer back. Card data never: brand and last four only.
 */
export type CollectionIntent = Pick<
  CollectionRow,
  | 'merchantReference'
  | 'createdAt'
  | 'amountMinor'
  | 'currency'
  | 'description'
  | 'customerName'
  | 'customerEmail'
  | 'chargeCustomer'
  | 'allowFinalStatusChange'
  | 'operator'
  | 'providerCode'
  | 'cardBrand'
  | 'cardLast4'
> & { redirectUrl: string };

/**
 * A collection's intent columns, in the order of the row (merchant_reference to card_last4): what
 * insertIntentCollection writes, and what a snapshot's check (team/snapshot/verify.ts) expects to read.
 */
export function intentValues(c: CollectionIntent): unknown[] {
  return [
    c.merchantReference,
    c.createdAt,
    c.amountMinor,
    c.currency,
    c.description,
    c.customerName,
    c.customerEmail,
    c.chargeCustomer ? 1 : 0,
    c.allowFinalStatusChange ? 1 : 0,
    c.operator,
    c.providerCode,
    c.redirectUrl,
    c.cardBrand,
    c.cardLast4,
  ];
}

const stmtCache = new WeakMap<Db, { run(...args: unknown[]): { lastInsertRowid: number | bigint } }>();

/** Inserts the collection (status INTENT) and returns its id. Call inside the caller's write transaction. */
export function insertIntentCollection(db: Db, c: CollectionIntent): number {
  let st = stmtCache.get(db);
  if (!st) {
    st = db.prepare(
      `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, customer_name, customer_email,
           charge_customer, allow_final_status_change, operator, provider_code, redirect_url, card_brand, card_last4, status, status_changed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'INTENT', ?)`,
    );
    stmtCache.set(db, st);
  }
  const info = st.run(...intentValues(c), c.createdAt);
  return Number(info.lastInsertRowid);
}

const idByReference = new WeakMap<Db, ReturnType<Db['prepare']>>();
export function collectionIdByReference(db: Db): ReturnType<Db['prepare']> {
  let st = idByReference.get(db);
  if (!st) {
    st = db.prepare('SELECT id FROM collections WHERE merchant_reference = ?').pluck();
    idByReference.set(db, st);
  }
  return st;
}

/**
 * Saves an intent: its collection (status INTENT) and its intent_saved event, in one transaction;
 * returns the collection id. On a team profile the intent was committed in the team database first, and
 * this desktop's own sync may have applied it already (its notification can beat the charge path back
 * here): then the row is found and nothing is stored twice.
 */
export function saveIntentCollection(db: Db, intent: CollectionIntent): number {
  return writeTransaction(db, () => {
    const known = collectionIdByReference(db).get(intent.merchantReference) as number | undefined;
    const id = known ?? insertIntentCollection(db, intent);
    appendEvent(db, {
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
