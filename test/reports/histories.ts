// Histories the reports' tests export in either format (export.test.ts for CSV, xlsx.test.ts for .xlsx).
import type { Db } from '../../main/store/sqlite/connection.js';
import { resolveException } from '../../main/reconcile/index.js';
import { History, ledger, reconciler } from '../reconcile/fixtures.js';

/**
 * Three collections, created from 2026-11-03 21:30 UTC: a = UGX 150,000 matched (a formula in its
 * description, a guarded name with a comma and quotes), b = USD 25.50 paid 25.00 with a resolved
 * exception (its note with a comma, a line break and quotes), c = BHD 1.234 rejected.
 */
export function threeCollections(db: Db): { h: History; a: number; b: number; c: number } {
  const h = new History(db, Date.UTC(2026, 10, 3, 21, 30, 0));
  const a = h.collection({
    amountMinor: 150_000,
    currency: 'UGX',
    description: '=cmd|calc!A1 order',
    customerName: '+256 Jane, "JJ"',
  });
  h.accepted(a);
  h.redirect(a, 'COMPLETED');
  h.callback(a, 'COMPLETED');
  const b = h.collection({ amountMinor: 2_550, currency: 'USD', customerName: '@admin', customerEmail: null });
  h.accepted(b);
  h.callback(b, 'COMPLETED', { amountMinor: 2_500 });
  const c = h.collection({ amountMinor: 1_234, currency: 'BHD', customerName: 'Ünïcødé Ltd' });
  h.rejected(c);
  reconciler.due(db, { now: h.t });
  resolveException(
    ledger,
    db,
    { collectionId: b, note: 'Short by 0.50,\nrefund "agreed"', actor: 'Ann' },
    { now: h.t },
  );
  return { h, a, b, c };
}

/**
 * Balance snapshots around the day 2026-11-10 (UTC): KES actual 100.00 before it, 50.00, 250.00 and
 * 200.00 in it, 0.01 after it; UGX 700,000 in the collection wallet and 650,000 in the payout wallet.
 */
export function balanceDay(db: Db): { day: number } {
  const h = new History(db);
  const day = Date.UTC(2026, 10, 10);
  h.poll(day - 3600_000, [{ currency: 'KES', actualMinor: 10_000 }]); // before the range: the opening
  h.poll(day + 1000, [
    { currency: 'KES', actualMinor: 5_000 },
    { currency: 'UGX', actualMinor: 700_000 },
  ]);
  h.poll(day + 2000, [{ currency: 'KES', actualMinor: 25_000 }]);
  h.poll(day + 3000, [
    { currency: 'KES', actualMinor: 20_000 },
    { currency: 'UGX', actualMinor: 650_000, walletType: 'MERCHANT_PAYOUT' },
  ]);
  h.poll(day + 86_400_000 + 5, [{ currency: 'KES', actualMinor: 1 }]); // after the range
  return { day };
}

/** `n` KES collections a second apart from `t0` (MD-BULK-0...), each with a customer name to quote. */
export function bulk(db: Db, n: number, t0: number): void {
  const ins = db.prepare(
    `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, customer_name, operator, redirect_url, status, status_changed_at)
     VALUES (?, ?, ?, 'KES', 'Bulk order number', 'Bulk, "Customer"', 'op', 'https://merchant-desk.invalid/return', 'PENDING', ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++) ins.run(`MD-BULK-${i}`, t0 + i * 1000, 1000 + i, t0 + i * 1000);
  })();
}
