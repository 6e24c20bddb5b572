import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { migrate, openDatabase } from '../../main/store/sqlite/connection.js';
import { migrations } from '../../main/store/sqlite/migrations/index.js';
import { listCollections, type ListQuery } from '../../main/collections/query.js';
import { listPollRuns } from '../../main/store/sqlite/poll-runs.js';

const DROPPED = ['collections_internal_reference', 'collections_amount', 'poll_runs_kind_started'];

describe('migration 022: indexes no query uses', () => {
  it('a desk made before it keeps every row, shows the same pages, and no longer keeps the three indexes', () => {
    const file = path.join(tempDir(), 'md.sqlite');
    const old = openDatabase(
      file,
      migrations.filter((m) => m.version < 22),
    );
    const insert = old.prepare(
      `INSERT INTO collections (merchant_reference, created_at, amount_minor, currency, description, customer_name, operator,
         redirect_url, status, status_changed_at, internal_reference)
       VALUES (?, ?, ?, ?, 'Phone order', ?, 'Ann', 'https://merchant-desk.invalid/return', ?, ?, ?)`,
    );
    for (let i = 1; i <= 300; i++)
      insert.run(
        `MD-${i}`,
        1_800_000_000_000 + i * 60_000,
        (i * 7919) % 100_000,
        i % 3 ? 'UGX' : 'KES',
        i % 2 ? 'Amina Hassan' : 'Okello James',
        i % 5 ? 'COMPLETED' : 'FAILED',
        1_800_000_000_000 + i * 60_000,
        `INT${i.toString(16).toUpperCase()}`,
      );
    old.prepare("INSERT INTO poll_runs (kind, started_at, finished_at, outcome) VALUES ('balances', 1, 2, 'ok')").run();
    const indexes = () => old.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all() as string[];
    expect(indexes()).toEqual(expect.arrayContaining(DROPPED));
    const pages: ListQuery[] = [
      { text: 'int1', sort: { column: 'created_at', dir: 'desc' }, limit: 20 },
      { sort: { column: 'amount', dir: 'desc' }, offset: 40, limit: 20 },
      { currency: 'KES', sort: { column: 'amount', dir: 'asc' }, limit: 20 },
      { status: 'FAILED', sort: { column: 'amount', dir: 'desc' }, limit: 20 },
    ];
    const before = pages.map((q) => listCollections(old, q));

    migrate(old);

    expect(old.pragma('user_version', { simple: true })).toBe(22);
    expect(indexes().filter((n) => DROPPED.includes(n))).toEqual([]);
    expect(old.prepare('SELECT count(*) FROM collections').pluck().get()).toBe(300);
    expect(pages.map((q) => listCollections(old, q))).toEqual(before);
    expect(before.every((p) => p.rows.length > 0)).toBe(true);
    expect(listPollRuns(old, { kind: 'balances' }).map((r) => r.outcome)).toEqual(['ok']);
    old.close();
  });
});
