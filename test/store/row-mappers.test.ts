// The store's edge (main/store/columns.ts): a stored value of the wrong type (a row written by hand, or a
// column whose affinity let it in) is refused where it is read, by a StoreError naming the column, instead
// of reaching a screen or a charge as NaN or as text where a number belongs.
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../main/store/sqlite/connection.js';
import { collectionsPage } from '../../main/store/sqlite/read/collections-page.js';
import { collectionAsStored } from '../../main/store/sqlite/read/collection-detail.js';
import { cachedCardOption } from '../../main/store/sqlite/read/card-options.js';
import { projectionOf } from '../../main/store/sqlite/ledger/projection.js';
import { recordProvidersRun } from '../../main/store/sqlite/payment-options.js';
import { freshDb, insertCollection } from '../collections/helpers.js';

function storeErrorOf(read: () => unknown): StoreError {
  try {
    read();
  } catch (e) {
    if (e instanceof StoreError) return e;
    throw e;
  }
  throw new Error('the read did not refuse the row');
}

describe('typed rows at the store edge', () => {
  it('reads well-formed collections with their declared types, every column of the stored row', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-ROW-1', amountMinor: 15000 });
    const page = collectionsPage(db, {});
    expect(page.total).toBe(1);
    expect(page.rows[0]).toMatchObject({ id, merchant_reference: 'MD-ROW-1', amount_minor: 15000, currency: 'UGX' });
    expect(collectionAsStored(db, id)).toMatchObject({
      redirect_url: 'https://merchant-desk.invalid/return',
      last_event_id: null,
      customer_email: null,
    });
  });

  it('refuses a collection whose amount is text, naming the column, on the page and in the ledger', () => {
    const { db } = freshDb();
    const id = insertCollection(db, { reference: 'MD-ROW-2' });
    db.prepare("UPDATE collections SET amount_minor = 'fifteen' WHERE id = ?").run(id);
    const onPage = storeErrorOf(() => collectionsPage(db, {}));
    expect(onPage.message).toMatch(/amount_minor/);
    expect(onPage.message).toMatch(/not an integer/);
    expect(storeErrorOf(() => projectionOf(db, id)).message).toMatch(/amount_minor/);
    expect(storeErrorOf(() => collectionAsStored(db, id)).message).toMatch(/amount_minor/);
  });

  it('refuses a cached card option whose limit is not a number instead of offering NaN limits', () => {
    const { db } = freshDb();
    recordProvidersRun(db, {
      startedAt: 0,
      finishedAt: 10,
      result: {
        ok: true,
        value: [
          {
            providerName: 'Card',
            providerCode: 'CARD_UGX',
            transactionMethod: 'CARD',
            transactionMethodName: 'Card',
            transactionType: 'Collection',
            currency: 'UGX',
            minMinor: 500,
            maxMinor: 5_000_000,
            maxDailyMinor: 20_000_000,
            isActive: true,
            optionPrefixes: [],
          },
        ],
      },
    });
    expect(cachedCardOption(db, 'UGX')).toMatchObject({ providerCode: 'CARD_UGX', minMinor: 500, isActive: true });
    db.prepare("UPDATE payment_options SET min_minor = 'five hundred'").run();
    expect(storeErrorOf(() => cachedCardOption(db, 'UGX')).message).toMatch(/min_minor/);
  });
});
