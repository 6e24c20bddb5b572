// The row a charge's intent creates in `collections` (status INTENT), and the look-up of a collection by
// its merchant reference: the charge path, team sync and the callback ingestion all find a collection so.
import type Database from 'better-sqlite3';
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { asValues, intValue, textValue } from '../../columns.js';

/**
 * Everything a collection starts with (status INTENT): its intent columns, and where the hosted page
 * sends the customer back. Card data never: brand and last four only. (collections/intent-row.ts
 * names it CollectionIntent.)
 */
export interface IntentColumns {
  merchantReference: string;
  createdAt: number;
  amountMinor: number;
  currency: string;
  description: string;
  customerName: string | null;
  customerEmail: string | null;
  chargeCustomer: boolean;
  allowFinalStatusChange: boolean;
  operator: string;
  providerCode: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  redirectUrl: string;
}

/**
 * A collection's intent columns, in the order of the row (merchant_reference to card_last4): what
 * insertIntentCollection writes, and what a snapshot's check (team/snapshot/verify.ts) expects to read.
 */
export function intentValues(c: IntentColumns): unknown[] {
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

/**
 * Inserts the collection (status INTENT) and returns its id: `id` when given (a re-base gives a reference
 * back the id it had), else the next one. Call inside the caller's write transaction.
 */
export function insertIntentCollection(db: WriteDb, c: IntentColumns, id: number | null = null): number {
  const info = statement(
    db,
    `INSERT INTO collections (id, merchant_reference, created_at, amount_minor, currency, description, customer_name, customer_email,
           charge_customer, allow_final_status_change, operator, provider_code, redirect_url, card_brand, card_last4, status, status_changed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'INTENT', ?)`,
  ).run(id, ...intentValues(c), c.createdAt);
  return Number(info.lastInsertRowid);
}

const ID_BY_REFERENCE = 'SELECT id FROM collections WHERE merchant_reference = ?';

/** The id of the collection with this merchant reference, if there is one. */
export function collectionIdOf(db: ReadDb, merchantReference: string): number | undefined {
  const id = readStatement(db, ID_BY_REFERENCE, 'pluck').get(merchantReference);
  return id === undefined ? undefined : intValue(id, 'id');
}

/**
 * The same look-up as a statement (its rows plucked to the id), for a loop over many references (team
 * sync's apply and bulk copy hold it). Never call pluck/raw on it.
 */
export function collectionIdByReference(db: WriteDb): Database.Statement {
  return statement(db, ID_BY_REFERENCE, 'pluck');
}

/** The collections of the merchant references of a JSON array (those that exist): one statement for a set. */
export function collectionIdsIn(db: ReadDb, referencesJson: string): Map<string, number> {
  const rows = readStatement(
    db,
    'SELECT merchant_reference, id FROM collections WHERE merchant_reference IN (SELECT value FROM json_each(?))',
    'raw',
  ).all(referencesJson);
  const ids = new Map<string, number>();
  for (const row of rows) {
    const [reference, id] = asValues(row);
    ids.set(textValue(reference, 'merchant_reference'), intValue(id, 'id'));
  }
  return ids;
}
