import path from 'node:path';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { testLedger } from '../support/ledger.js';
import { tempDir } from '../support/tmp.js';

/** The ledger the helpers append through (a test may append through it too). */
export const { ledger } = testLedger();

export function freshDb(): { db: Db; dir: string } {
  const dir = tempDir();
  return { db: openDatabase(path.join(dir, 'merchant-desk.db')), dir };
}

/** A collection row as the charge service saves it, for tests that do not need the service. */
export function insertCollection(
  db: Db,
  over: Partial<{
    reference: string;
    amountMinor: number;
    currency: string;
    status: string;
    createdAt: number;
    customer: string | null;
    internalReference: string;
  }> = {},
): number {
  const now = over.createdAt ?? Date.UTC(2026, 10, 21, 10, 0, 0);
  const info = db
    .prepare(
      `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, customer_name, operator, redirect_url,
        card_brand, card_last4, status, status_changed_at, internal_reference)
       VALUES (?, ?, ?, ?, 'Phone order 1234', ?, 'agent', 'https://merchant-desk.invalid/return', 'visa', '4242', ?, ?, ?)`,
    )
    .run(
      over.reference ?? 'MD-TEST-0001',
      now,
      over.amountMinor ?? 15000,
      over.currency ?? 'UGX',
      'customer' in over ? over.customer : 'Amina N',
      over.status ?? 'PENDING',
      now,
      over.internalReference ?? null,
    );
  return Number(info.lastInsertRowid);
}

export function outcome(
  db: Db,
  id: number,
  reference: string,
  source: 'redirect' | 'callback' | 'import',
  status: string,
  over: Partial<NewEvent> = {},
) {
  return ledger.append(db, {
    collectionId: id,
    merchantReference: reference,
    source,
    kind: 'outcome',
    status,
    receivedAt: Date.UTC(2026, 10, 21, 10, 5, 0),
    signature: 'verified',
    ...over,
  });
}
