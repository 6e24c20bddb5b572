import { describe, expect, it } from 'vitest';
import { collectedToday, listCollections, startOfDay } from '../../main/collections/query.js';
import { appendEvent } from '../../main/collections/events.js';
import type { Db } from '../../main/store/db.js';
import { freshDb, insertCollection, outcome } from './helpers.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function seed(db: Db) {
  const statuses = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'UNKNOWN'];
  const currencies = ['UGX', 'KES'];
  const names: (string | null)[] = ['Amina Nakato', 'Brian Otieno', 'Chloe Mwangi', "D'Souza Ltd", null];
  for (let i = 0; i < 50; i++) {
    insertCollection(db, {
      reference: `MD-2026-${String(i).padStart(4, '0')}`,
      amountMinor: 1000 * ((i * 7) % 50) + i,
      currency: currencies[i % 2]!,
      status: statuses[i % 5]!,
      createdAt: T0 + i * DAY,
      customer: names[i % 5] ?? null,
      internalReference: `INT-${String(1000 + i)}`,
    });
  }
}

describe('listCollections', () => {
  it('filters by status, currency, date range and text; counts the total; pages', () => {
    const { db } = freshDb();
    seed(db);
    expect(listCollections(db).total).toBe(50);
    expect(listCollections(db, { status: 'COMPLETED' }).total).toBe(10);
    expect(listCollections(db, { status: ['COMPLETED', 'FAILED'], currency: 'kes' }).rows.every((r) => r.currency === 'KES' && ['COMPLETED', 'FAILED'].includes(r.status))).toBe(true);
    const range = listCollections(db, { from: T0 + 10 * DAY, to: T0 + 20 * DAY });
    expect(range.total).toBe(10);
    expect(range.rows[0]!.merchantReference).toBe('MD-2026-0019'); // newest first by default
    expect(listCollections(db, { text: 'brian' }).total).toBe(10);
    expect(listCollections(db, { text: 'md-2026-001' }).total).toBe(10);
    expect(listCollections(db, { text: 'INT-1042' }).rows.map((r) => r.merchantReference)).toEqual(['MD-2026-0042']);
    expect(listCollections(db, { text: "d'souza" }).total).toBe(10);
    expect(listCollections(db, { text: '%' }).total).toBe(0); // no wildcard tricks
    const p1 = listCollections(db, { sort: { column: 'amount', dir: 'asc' }, limit: 20 });
    const p2 = listCollections(db, { sort: { column: 'amount', dir: 'asc' }, limit: 20, offset: 20 });
    const amounts = [...p1.rows, ...p2.rows].map((r) => r.amountMinor);
    expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
    expect(new Set([...p1.rows, ...p2.rows].map((r) => r.id)).size).toBe(40);
    expect(listCollections(db, { sort: { column: 'customer', dir: 'asc' }, limit: 1 }).rows[0]!.customerName).toBeNull();
  });

  it('shows what each source says and whether they agree', () => {
    const { db } = freshDb();
    const a = insertCollection(db, { reference: 'MD-S-0000001' });
    const b = insertCollection(db, { reference: 'MD-S-0000002', createdAt: Date.UTC(2026, 10, 21, 11) });
    outcome(db, a, 'MD-S-0000001', 'redirect', 'COMPLETED');
    outcome(db, a, 'MD-S-0000001', 'callback', 'COMPLETED');
    outcome(db, b, 'MD-S-0000002', 'redirect', 'COMPLETED');
    outcome(db, b, 'MD-S-0000002', 'callback', 'FAILED');
    const rows = listCollections(db, { sort: { column: 'reference', dir: 'asc' } }).rows;
    expect(rows.map((r) => r.sources.agree)).toEqual([true, false]);
    expect(rows[1]!.flags).toEqual(['sources_disagree']);
    expect(listCollections(db, { flagged: true }).total).toBe(1);
  });

  it('every filter and sort is served by an index (a year of history stays fast)', () => {
    const { db } = freshDb();
    const plans: string[] = [];
    const spy = db.prepare.bind(db);
    (db as unknown as { prepare: typeof db.prepare }).prepare = ((sql: string) => {
      if (/FROM collections/.test(sql) && !/^EXPLAIN/.test(sql)) plans.push(sql);
      return spy(sql);
    }) as typeof db.prepare;
    const queries = [
      {},
      { status: 'PENDING' },
      { currency: 'UGX', from: T0 },
      { text: 'amina' },
      { sort: { column: 'amount' as const, dir: 'asc' as const } },
      { sort: { column: 'reference' as const, dir: 'desc' as const } },
      { sort: { column: 'customer' as const, dir: 'asc' as const } },
      { from: T0, to: T0 + DAY },
      { flagged: true },
    ];
    for (const q of queries) listCollections(db, q);
    for (const sql of plans) {
      const params = { s0: 'PENDING', currency: 'UGX', from: T0, to: T0 + DAY, tlo: 'amina', thi: 'amina\uffff' };
      const used = Object.fromEntries(Object.entries(params).filter(([k]) => sql.includes('@' + k)));
      const plan = (spy(`EXPLAIN QUERY PLAN ${sql}`).all(used) as { detail: string }[]).map((p) => p.detail).join(' | ');
      // A full scan is acceptable only when it walks an index in the wanted order (no temp sort of every row).
      expect(plan, sql).not.toMatch(/SCAN collections(?! USING)/);
      if (/ORDER BY/.test(sql) && !/@tlo/.test(sql)) expect(plan, sql).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
    }
  });
});

describe('collectedToday', () => {
  it('sums COMPLETED and PENDING amounts of today in the currency', () => {
    const { db } = freshDb();
    const now = Date.UTC(2026, 10, 21, 12);
    const today = startOfDay(now, 0);
    insertCollection(db, { reference: 'MD-T-1', amountMinor: 1000, status: 'COMPLETED', createdAt: today + 1 });
    insertCollection(db, { reference: 'MD-T-2', amountMinor: 2000, status: 'PENDING', createdAt: today + 2 });
    insertCollection(db, { reference: 'MD-T-3', amountMinor: 4000, status: 'FAILED', createdAt: today + 3 });
    insertCollection(db, { reference: 'MD-T-4', amountMinor: 8000, status: 'COMPLETED', createdAt: today - 1 });
    insertCollection(db, { reference: 'MD-T-5', amountMinor: 16000, status: 'COMPLETED', currency: 'KES', createdAt: today + 4 });
    expect(collectedToday(db, 'UGX', now, 0)).toBe(3000);
    expect(collectedToday(db, 'kes', now, 0)).toBe(16000);
    expect(startOfDay(Date.UTC(2026, 10, 21, 1), 180)).toBe(Date.UTC(2026, 10, 20, 21)); // UTC+3
    void appendEvent;
  });
});
