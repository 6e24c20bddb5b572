import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectedToday, listCollections, startOfDay } from '../../main/collections/query.js';
import { PAGE_TUNING } from '../../main/store/sqlite/read/collections-page.js';
import { openDatabase, type Db } from '../../main/store/sqlite/connection.js';
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
    expect(
      listCollections(db, { status: ['COMPLETED', 'FAILED'], currency: 'kes' }).rows.every(
        (r) => r.currency === 'KES' && ['COMPLETED', 'FAILED'].includes(r.status),
      ),
    ).toBe(true);
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
    // Never mixed across currencies: grouped by currency, ascending amounts within each.
    const rows = [...p1.rows, ...p2.rows].map((r) => [r.currency, r.amountMinor] as const);
    expect(rows).toEqual([...rows].sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1]));
    expect(new Set([...p1.rows, ...p2.rows].map((r) => r.id)).size).toBe(40);
    expect(
      listCollections(db, { sort: { column: 'customer', dir: 'asc' }, limit: 1 }).rows[0]!.customerName,
    ).toBeNull();
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
      // The benchmark's slow cases: amount within a currency, customer within statuses and a currency.
      { currency: 'KES', sort: { column: 'amount' as const, dir: 'desc' as const }, offset: 100 },
      { status: ['FAILED', 'CANCELLED'], currency: 'USD', sort: { column: 'customer' as const, dir: 'asc' as const } },
      { status: ['FAILED', 'CANCELLED'], sort: { column: 'customer' as const, dir: 'desc' as const } },
      { status: 'COMPLETED', currency: 'UGX' },
      { currency: 'UGX', sort: { column: 'customer' as const, dir: 'asc' as const } },
    ];
    // As on a year of history (every filter matches more than a page's worth to sort), with no statistics.
    const tuning = PAGE_TUNING.sortIndexAbove;
    PAGE_TUNING.sortIndexAbove = -1;
    try {
      for (const q of queries) listCollections(db, q);
    } finally {
      PAGE_TUNING.sortIndexAbove = tuning;
    }
    expect(plans.length).toBeGreaterThan(queries.length);
    for (const sql of plans) {
      const params = {
        s0: 'PENDING',
        s1: 'FAILED',
        currency: 'UGX',
        from: T0,
        to: T0 + DAY,
        tlo: 'amina',
        thi: 'amina\uffff',
        pageOffset: 0,
      };
      const used = Object.fromEntries(Object.entries(params).filter(([k]) => sql.includes('@' + k)));
      const steps = spy(`EXPLAIN QUERY PLAN ${sql}`).all(used) as { parent: number; detail: string }[];
      const plan = steps.map((p) => p.detail).join(' | ');
      // A full scan is acceptable only when it walks an index in the wanted order (no temp sort of every row).
      expect(plan, sql).not.toMatch(/SCAN collections(?! USING)/);
      // The page itself (at most 1,000 rows fetched by id) may be sorted; what selects it may not.
      const pageSort = /^SELECT [^(]* FROM collections WHERE id IN \(/s.test(sql);
      const sorts = steps.filter((p) => /USE TEMP B-TREE FOR ORDER BY/.test(p.detail) && !(pageSort && p.parent === 0));
      if (/ORDER BY/.test(sql) && !/@tlo/.test(sql))
        expect(
          sorts.map((p) => p.detail),
          `${sql}\n${plan}`,
        ).toEqual([]);
    }
  });
});

describe('a text search sorted by time', () => {
  it('reads the day-keyed indexes (migration 021) a day at a time, sorting within a day only', () => {
    const { db } = freshDb();
    seed(db);
    const plans: { sql: string; params: Record<string, unknown> }[] = [];
    const spy = db.prepare.bind(db);
    (db as unknown as { prepare: typeof db.prepare }).prepare = ((sql: string) => {
      const st = spy(sql);
      if (/INDEXED BY collections_day_/.test(sql)) {
        const all = st.all.bind(st);
        (st as unknown as { all: typeof st.all }).all = ((params: Record<string, unknown>) => {
          plans.push({ sql, params });
          return all(params);
        }) as typeof st.all;
      }
      return st;
    }) as typeof db.prepare;
    for (const dir of ['asc', 'desc'] as const)
      expect(listCollections(db, { text: 'md-2026-001', sort: { column: 'created_at', dir } }).total).toBe(10);
    expect(plans).toHaveLength(2);
    for (const { sql, params } of plans) {
      const plan = (spy(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((p) => p.detail);
      expect(plan).toContain(
        'SEARCH collections USING COVERING INDEX collections_day_reference (<expr>=? AND <expr>>? AND <expr><?)',
      );
      expect(plan).toContain(
        'SEARCH collections USING COVERING INDEX collections_day_customer (<expr>=? AND <expr>>? AND <expr><?)',
      );
      // Days in order, each day's matches sorted on their own: the arm stops at the day that gives its rows.
      expect(plan.filter((p) => p === 'USE TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY')).toHaveLength(2);
    }
  });
});

describe('listCollections pages match a plain filter and sort', () => {
  // Rows the page query splits into arms (one per status, one per text column): compare with a naive
  // filter + sort in JS over the same rows, at several offsets, including ties and text that matches
  // two columns of one row (counted and listed once).
  function world(db: Db) {
    const statuses = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'];
    const names: (string | null)[] = ['md-2026 Traders', 'Amina', 'amina', 'Brian', null, 'Zed'];
    const all: {
      id: number;
      ref: string;
      internal: string;
      createdAt: number;
      amount: number;
      currency: string;
      status: string;
      customer: string | null;
    }[] = [];
    for (let i = 0; i < 240; i++) {
      const r = {
        ref: `MD-2026${String((i % 3) + 1).padStart(2, '0')}-${String(i).padStart(4, '0')}`,
        internal: i % 7 === 0 ? `md-2026-int-${i}` : `INT-${i}`,
        createdAt: T0 + (i % 60) * DAY, // ties on time
        amount: 1000 * (i % 13), // ties on amount
        currency: ['UGX', 'KES', 'USD'][i % 3]!,
        status: statuses[(i * 7) % 4]!,
        customer: names[i % names.length] ?? null,
      };
      const id = insertCollection(db, {
        reference: r.ref,
        internalReference: r.internal,
        createdAt: r.createdAt,
        amountMinor: r.amount,
        currency: r.currency,
        status: r.status,
        customer: r.customer,
      });
      all.push({ id, ...r });
    }
    return all;
  }
  type R = ReturnType<typeof world>[number];
  const key: Record<string, (r: R) => string | number | null> = {
    created_at: (r) => r.createdAt,
    // Amounts are compared within a currency: currency first, then the amount.
    amount: (r) => `${r.currency} ${String(r.amount).padStart(12, '0')}`,
    customer: (r) => r.customer?.toLowerCase() ?? null,
    reference: (r) => r.ref.toLowerCase(),
  };
  function naive(
    all: R[],
    q: { status?: string[]; currency?: string; text?: string; sort: { column: string; dir: 'asc' | 'desc' } },
  ) {
    const t = q.text?.toLowerCase();
    const hit = all.filter(
      (r) =>
        (!q.status || q.status.includes(r.status)) &&
        (!q.currency || r.currency === q.currency) &&
        (!t || [r.ref, r.internal, r.customer].some((v) => v !== null && v.toLowerCase().startsWith(t))),
    );
    const k = key[q.sort.column]!;
    const cmp = (a: R, b: R) => {
      const x = k(a),
        y = k(b);
      if (x !== y) return x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
      return a.id - b.id;
    };
    hit.sort((a, b) => (q.sort.dir === 'asc' ? cmp(a, b) : cmp(b, a)));
    return hit;
  }

  it('multi-status, currency and text filters, every sort, several offsets', () => {
    const { db } = freshDb();
    const all = world(db);
    const filters = [
      { status: ['FAILED', 'CANCELLED'], currency: 'USD' },
      { status: ['COMPLETED', 'PENDING', 'FAILED'] },
      { text: 'md-2026' }, // references, some internal references and a customer name
      { text: 'amina', status: ['PENDING', 'COMPLETED'] },
      { currency: 'KES' },
    ];
    let checked = 0;
    const tuning = PAGE_TUNING.sortIndexAbove;
    try {
      // Both plans: filters' indexes find the matches, or (as above 20,000 matches) the sort index is walked.
      for (const above of [tuning, -1]) {
        PAGE_TUNING.sortIndexAbove = above;
        for (const f of filters)
          for (const column of ['created_at', 'amount', 'customer', 'reference'] as const)
            for (const dir of ['asc', 'desc'] as const)
              for (const offset of [0, 7, 30]) {
                const q = { ...f, sort: { column, dir }, offset, limit: 10 };
                const want = naive(all, q);
                const got = listCollections(db, q);
                expect(
                  got.rows.map((r) => r.id),
                  JSON.stringify(q),
                ).toEqual(want.slice(offset, offset + 10).map((r) => r.id));
                expect(got.total, JSON.stringify(q)).toBe(want.length);
                checked += want.length > offset ? 1 : 0;
              }
      }
    } finally {
      PAGE_TUNING.sortIndexAbove = tuning;
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('a status filter of a few thousand matches sorted by something else (the sort index walked against the set of its ids): every page as a plain filter and sort gives it, and no row is read to test a status', () => {
    const { db } = freshDb();
    const all = world(db);
    const tuning = { ...PAGE_TUNING };
    const plans: string[] = [];
    const spy = db.prepare.bind(db);
    (db as unknown as { prepare: typeof db.prepare }).prepare = ((sql: string) => {
      if (sql.includes('+id IN')) plans.push(sql);
      return spy(sql);
    }) as typeof db.prepare;
    let checked = 0;
    try {
      // As on a year of history: the filter's matches are above the set's threshold, below the walk's.
      PAGE_TUNING.sortIndexAbove = 1_000_000;
      PAGE_TUNING.semiJoinAbove = -1;
      for (const f of [
        { status: ['FAILED', 'CANCELLED'], currency: 'USD' },
        { status: ['COMPLETED', 'PENDING', 'FAILED'] },
        { status: ['PENDING'], currency: 'KES' },
      ])
        for (const column of ['amount', 'customer', 'reference'] as const)
          for (const dir of ['asc', 'desc'] as const)
            for (const offset of [0, 7, 30]) {
              const q = { ...f, sort: { column, dir }, offset, limit: 10 };
              const want = naive(all, q);
              const got = listCollections(db, q);
              expect(
                got.rows.map((r) => r.id),
                JSON.stringify(q),
              ).toEqual(want.slice(offset, offset + 10).map((r) => r.id));
              expect(got.total, JSON.stringify(q)).toBe(want.length);
              checked += want.length > offset ? 1 : 0;
            }
    } finally {
      Object.assign(PAGE_TUNING, tuning);
    }
    expect(checked).toBeGreaterThan(40);
    expect(plans.length).toBeGreaterThan(0);
    for (const sql of new Set(plans)) {
      const params = { s0: 'PENDING', s1: 'FAILED', s2: 'COMPLETED', currency: 'USD', pageOffset: 0 };
      const used = Object.fromEntries(Object.entries(params).filter(([k]) => sql.includes('@' + k)));
      const plan = (spy(`EXPLAIN QUERY PLAN ${sql}`).all(used) as { detail: string }[]).map((p) => p.detail);
      // The sort index and the status index read from their entries alone; only the page's rows are read.
      expect(
        plan.filter((p) => /^(SCAN|SEARCH) collections/.test(p) && !/COVERING INDEX|PRIMARY KEY/.test(p)),
        sql,
      ).toEqual([]);
    }
  });

  it('a text search sorted by time, references made in time order (the bound each text arm keeps): every page as a plain filter and sort gives it', () => {
    const { db } = freshDb();
    const rows: { id: number; createdAt: number; ref: string; internal: string; status: string }[] = [];
    for (let i = 0; i < 400; i++) {
      const r = {
        ref: `MD-${String(i).padStart(5, '0')}`,
        // Three collections share each time; a few internal references match the text too, some out of time order.
        internal: i % 11 === 0 ? `md-0-late-${i}` : `INT-${i}`,
        createdAt: T0 + Math.floor(i / 3) * 60_000 + (i % 11 === 0 ? 7 * DAY : 0),
        status: ['PENDING', 'COMPLETED'][i % 2]!,
      };
      const id = insertCollection(db, {
        reference: r.ref,
        internalReference: r.internal,
        createdAt: r.createdAt,
        status: r.status,
      });
      rows.push({ id, ...r });
    }
    let checked = 0;
    for (const text of ['md-0', 'md-001', 'MD-0003'])
      for (const status of [undefined, ['PENDING', 'COMPLETED'], ['COMPLETED']])
        for (const dir of ['asc', 'desc'] as const)
          for (const offset of [0, 2, 40, 95, 390]) {
            const t = text.toLowerCase();
            const want = rows
              .filter(
                (r) =>
                  (!status || status.includes(r.status)) &&
                  (r.ref.toLowerCase().startsWith(t) || r.internal.toLowerCase().startsWith(t)),
              )
              .sort((a, b) => (dir === 'asc' ? 1 : -1) * (a.createdAt - b.createdAt || a.id - b.id));
            const q = {
              text,
              ...(status ? { status } : {}),
              sort: { column: 'created_at' as const, dir },
              offset,
              limit: 10,
            };
            const got = listCollections(db, q);
            expect(
              got.rows.map((r) => r.id),
              JSON.stringify(q),
            ).toEqual(want.slice(offset, offset + 10).map((r) => r.id));
            expect(got.total, JSON.stringify(q)).toBe(want.length);
            checked += want.length > offset ? 1 : 0;
          }
    expect(checked).toBeGreaterThan(40);
  });

  it('a text search sorted by time across many days (read a day at a time): every page as a plain filter and sort gives it', () => {
    // References and names in no time order, times on both sides of midnight, before 1970, and a few
    // that are not whole milliseconds (stored REAL: read apart from the days), with and without a range.
    const letters = ['a', 'b', 'ab', 'ba'];
    const { db } = freshDb();
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            ref: fc.constantFrom(...letters),
            customer: fc.option(fc.constantFrom(...letters), { nil: null }),
            day: fc.integer({ min: -3, max: 40 }),
            at: fc.constantFrom(0, 1, DAY / 2, DAY - 1),
            real: fc.boolean(),
            status: fc.constantFrom('PENDING', 'COMPLETED'),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        fc.record({
          text: fc.constantFrom('a', 'b', 'A', 'ab', 'b', 'zz'),
          dir: fc.constantFrom('asc' as const, 'desc' as const),
          offset: fc.constantFrom(0, 3, 20),
          limit: fc.constantFrom(1, 5, 30),
          from: fc.option(fc.integer({ min: -2, max: 30 }), { nil: undefined }),
          to: fc.option(fc.integer({ min: 0, max: 42 }), { nil: undefined }),
          status: fc.option(fc.constantFrom<string[]>(['PENDING'], ['PENDING', 'COMPLETED']), { nil: undefined }),
        }),
        (specs, q) => {
          db.exec('DELETE FROM collections');
          const rows = specs.map((s, i) => {
            const createdAt = T0 + s.day * DAY + s.at;
            const id = insertCollection(db, {
              reference: `${s.ref}-${i}`,
              internalReference: `INT-${i}`,
              customer: s.customer === null ? null : `${s.customer} ${i}`,
              createdAt,
              status: s.status,
            });
            if (s.real) db.prepare('UPDATE collections SET created_at = created_at + 0.25 WHERE id = ?').run(id);
            return { id, ...s, createdAt: createdAt + (s.real ? 0.25 : 0) };
          });
          const t = q.text.toLowerCase();
          const from = q.from === undefined ? undefined : T0 + q.from * DAY;
          // A range's end at a day's start, or half way through it.
          const to = q.to === undefined ? undefined : T0 + q.to * DAY + (q.to % 2 ? DAY / 2 : 0);
          const want = rows
            .filter(
              (r) =>
                (`${r.ref}-`.startsWith(t) || (r.customer !== null && `${r.customer} `.startsWith(t))) &&
                (from === undefined || r.createdAt >= from) &&
                (to === undefined || (from !== undefined && to <= from) || r.createdAt < to) &&
                (!q.status || q.status.includes(r.status)),
            )
            .sort((a, b) => (q.dir === 'asc' ? 1 : -1) * (a.createdAt - b.createdAt || a.id - b.id));
          const got = listCollections(db, {
            text: q.text,
            sort: { column: 'created_at', dir: q.dir },
            offset: q.offset,
            limit: q.limit,
            ...(from === undefined ? {} : { from }),
            ...(to === undefined || (from !== undefined && to <= from) ? {} : { to }),
            ...(q.status ? { status: q.status } : {}),
          });
          expect(got.rows.map((r) => r.id)).toEqual(want.slice(q.offset, q.offset + q.limit).map((r) => r.id));
          expect(got.total).toBe(want.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the total follows writes (it is reused only while nothing changed)', () => {
    const { db } = freshDb();
    world(db);
    const q = { status: ['FAILED', 'CANCELLED'], currency: 'USD' };
    const before = listCollections(db, q).total;
    expect(listCollections(db, { ...q, offset: 10 }).total).toBe(before);
    const id = insertCollection(db, { reference: 'MD-NEW-0001', currency: 'USD', status: 'PENDING', customer: null });
    expect(listCollections(db, q).total).toBe(before);
    outcome(db, id, 'MD-NEW-0001', 'callback', 'FAILED');
    expect(listCollections(db, q).total).toBe(before + 1);
    expect(
      listCollections(db, { ...q, sort: { column: 'customer', dir: 'asc' }, limit: 1 }).rows[0]!.merchantReference,
    ).toBe('MD-NEW-0001');
    // A write by another connection (another process or a worker) counts too.
    const other = openDatabase(db.name);
    const id2 = insertCollection(other, { reference: 'MD-NEW-0002', currency: 'USD', status: 'CANCELLED' });
    other.close();
    expect(listCollections(db, { ...q, offset: 20 }).total).toBe(before + 2);
    expect(id2).toBeGreaterThan(id);
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
    insertCollection(db, {
      reference: 'MD-T-5',
      amountMinor: 16000,
      status: 'COMPLETED',
      currency: 'KES',
      createdAt: today + 4,
    });
    expect(collectedToday(db, 'UGX', now, 0)).toBe(3000);
    expect(collectedToday(db, 'kes', now, 0)).toBe(16000);
    expect(startOfDay(Date.UTC(2026, 10, 21, 1), 180)).toBe(Date.UTC(2026, 10, 20, 21)); // UTC+3
  });
});
