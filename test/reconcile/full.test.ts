// The one incremental path (appendEvent reconciles every stored event) against the set-based full
// recompute (main/store/sqlite/reconcile/full-pass-sql.ts), on randomized histories in a real SQLite file; reads that never write; and
// callbacks imported from a file reconciled with no read involved.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../main/collections/event-rules.js';
import type { EventKind, EventSource, SignatureState } from '../../main/collections/model.js';
import { importCallbacksJsonl } from '../../main/callbacks/import-jsonl.js';
import { signedString } from '../../main/service/signatures.js';
import { formatMinor } from '../../main/money/index.js';
import {
  getDetail,
  getSummary,
  listExceptions,
  listOrphanCallbacks,
  reconcileAll,
} from '../../main/reconcile/index.js';
import { reconcileAllOnThreads } from '../../main/reconcile/reconcile-on-threads.js';
import {
  kindSetsSql,
  NEEDS_JS_SQL,
  NOT_MATCHED,
  RECONCILE_RANGE_SQL,
  reconcileIndexSql,
  UNDECIDED_SQL,
} from '../../main/store/sqlite/reconcile/full-pass-sql.js';
import { sql as migration014 } from '../../main/store/sqlite/migrations/014-reconcile-event-terms.js';
import { History, testDb, ledger, reconciler } from './fixtures.js';

const STALE = 30 * 60_000;
const CURRENCIES = ['UGX', 'KES', 'USD'] as const;
const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED'] as const;

/** One step of a history, as a source would report it. Amounts are relative to the intent's. */
type Step =
  | {
      t: 'initiate';
      kind: 'initialize_accepted' | 'initialize_exists' | 'initialize_unknown' | 'initialize_rejected';
      odd: boolean;
    }
  | {
      t: 'report';
      source: 'redirect' | 'callback' | 'import';
      status: string;
      signature: SignatureState;
      kind: 'outcome' | 'final_status_changed';
      amount: 'same' | 'more' | 'less' | 'none' | 'payload' | 'payload_bad';
      currency: 'same' | 'other' | 'none';
    }
  | { t: 'security' }
  | { t: 'manual'; kind: 'resolution' | 'manual_status'; status: string }
  | { t: 'window_closed' }
  | { t: 'replay'; back: number }
  | { t: 'wait'; ms: number };

const status = fc.constantFrom<string>(...FINAL, ...FINAL, 'PENDING');
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('initiate' as const),
      kind: fc.constantFrom('initialize_accepted', 'initialize_exists', 'initialize_unknown', 'initialize_rejected'),
      odd: fc.boolean(),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant('report' as const),
      source: fc.constantFrom('redirect', 'callback', 'callback', 'import'),
      status,
      signature: fc.constantFrom<SignatureState>('verified', 'verified', 'verified', 'invalid', 'missing'),
      kind: fc.constantFrom('outcome', 'outcome', 'final_status_changed'),
      amount: fc.constantFrom('same', 'same', 'same', 'more', 'less', 'none', 'payload', 'payload_bad'),
      currency: fc.constantFrom('same', 'same', 'same', 'other', 'none'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'security' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('manual' as const),
      kind: fc.constantFrom('resolution', 'resolution', 'manual_status'),
      status,
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'window_closed' as const }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('replay' as const), back: fc.nat(5) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('wait' as const),
      ms: fc.constantFrom(1_000, 60_000, STALE / 2, STALE, 3 * STALE),
    }),
  },
);
interface Spec {
  currency: (typeof CURRENCIES)[number];
  amount: number;
  steps: Step[];
}
const collectionArb: fc.Arbitrary<Spec> = fc.record({
  currency: fc.constantFrom(...CURRENCIES),
  amount: fc.integer({ min: 1, max: 5_000_000 }),
  steps: fc.array(step, { minLength: 0, maxLength: 10, size: 'max' }),
});

const SNAPSHOT = `SELECT collection_id, outcome, kinds, open_kinds, is_exception, last_event_id, stale_at, resolved_by_event_id,
  resolution_note, initiate_status, redirect_status, callback_status, import_status, manual_status, completed_at
  FROM reconciliation ORDER BY collection_id`;

/** Plays each collection's steps through the ledger, interleaved across collections. */
function play(h: History, collections: Spec[], order: number[]): void {
  const ids = collections.map((c) => h.collection({ amountMinor: c.amount, currency: c.currency }));
  const stored: NewEvent[][] = ids.map(() => []);
  const cursor = ids.map(() => 0);
  let n = 0;
  const next = (i: number) => {
    const c = collections[i]!;
    const s = c.steps[cursor[i]!++]!;
    const id = ids[i]!;
    const ref = h.db.prepare('SELECT merchant_reference FROM collections WHERE id = ?').pluck().get(id) as string;
    const base = { collectionId: id, merchantReference: ref, internalReference: `INT-${id}`, receivedAt: h.tick(1000) };
    const other = CURRENCIES.find((x) => x !== c.currency)!;
    let ev: NewEvent | null = null;
    if (s.t === 'wait') h.tick(s.ms);
    else if (s.t === 'initiate') {
      const st: Record<string, string> = {
        initialize_accepted: 'PENDING',
        initialize_exists: 'PENDING',
        initialize_unknown: 'UNKNOWN',
        initialize_rejected: 'REJECTED',
      };
      // odd: an initiate event without a status (the latest status then comes from an earlier one)
      ev = {
        ...base,
        source: 'initiate',
        kind: s.kind,
        status: s.odd ? null : st[s.kind]!,
        signature: 'not_applicable',
      };
    } else if (s.t === 'report') {
      const cur = s.currency === 'same' ? c.currency : s.currency === 'other' ? other : null;
      const amount =
        s.amount === 'same' ? c.amount : s.amount === 'more' ? c.amount + 1 : s.amount === 'less' ? c.amount - 1 : null;
      const payloadAmount =
        s.amount === 'payload'
          ? Number(formatMinor(c.amount, cur ?? c.currency))
          : s.amount === 'payload_bad'
            ? '1.23456'
            : amount === null
              ? undefined
              : Number(formatMinor(amount, c.currency));
      ev = {
        ...base,
        source: s.source as EventSource,
        kind: s.kind,
        status: s.status,
        signature: s.signature,
        amountMinor: s.source === 'redirect' ? null : amount,
        currency: s.source === 'redirect' || s.amount.startsWith('payload') ? null : cur,
        dedupeKey: `k:${id}:${n++}`,
        payload:
          s.source === 'redirect'
            ? null
            : JSON.stringify({
                event: 'transaction.completed',
                payload: {
                  merchant_reference: ref,
                  transaction_status: s.status,
                  request_amount: payloadAmount,
                  request_currency: cur ?? undefined,
                },
              }),
      };
    } else if (s.t === 'security') {
      ev = {
        ...base,
        source: 'security',
        kind: 'bad_signature',
        status: 'COMPLETED',
        signature: 'invalid',
        payload: '{"forged":true}',
      };
    } else if (s.t === 'manual') {
      ev = {
        ...base,
        source: 'manual',
        kind: s.kind as EventKind,
        status: s.kind === 'resolution' ? null : s.status,
        signature: 'not_applicable',
        note: `note ${n++}`,
        actor: 'Ann',
      };
    } else if (s.t === 'window_closed') {
      ev = { ...base, source: 'redirect', kind: 'window_closed', status: null, signature: 'not_applicable' };
    } else if (s.t === 'replay') {
      // a repeated delivery: the same dedupe key again, a no-op
      const earlier = stored[i]!.filter((e) => e.dedupeKey);
      if (earlier.length) ev = earlier[Math.max(0, earlier.length - 1 - s.back)]!;
    }
    if (ev) {
      ledger.append(h.db, ev);
      stored[i]!.push(ev);
    }
  };
  for (const i of order) if (cursor[i]! < collections[i]!.steps.length) next(i);
  collections.forEach((c, i) => {
    while (cursor[i]! < c.steps.length) next(i);
  });
}

describe('one incremental path, one set-based full recompute, the same answer', () => {
  it(
    'randomized histories: reconciled as appended (then swept for time) equals a full recompute, collection by collection',
    { timeout: 120_000 },
    async () => {
      let histories = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(collectionArb, { minLength: 1, maxLength: 120, size: 'max' }),
          fc.array(fc.nat(119), { maxLength: 600, size: 'max' }),
          fc.integer({ min: 1, max: 50 }),
          fc.constantFrom(0, 1_000, STALE, 5 * STALE),
          async (collections, interleave, span, later) => {
            const { db } = testDb();
            try {
              const h = new History(db);
              reconciler.setOptions(db, () => ({ now: h.t, stalePendingAfterMs: STALE }));
              play(
                h,
                collections,
                interleave.filter((i) => i < collections.length),
              );
              histories += collections.length;
              const now = h.t + later;
              // time is the one input without an event: the sweep applies it
              reconciler.due(db, { now, stalePendingAfterMs: STALE });
              const incremental = db.prepare(SNAPSHOT).all();
              expect(incremental).toHaveLength(collections.length);
              db.exec('DELETE FROM reconciliation');
              const full = await reconcileAll(db, { now, stalePendingAfterMs: STALE, batchSize: span });
              expect(full.collections).toBe(collections.length);
              expect(db.prepare(SNAPSHOT).all()).toEqual(incremental);
            } finally {
              db.close();
            }
          },
        ),
        { numRuns: 40 },
      );
      expect(histories).toBeGreaterThan(1000);
    },
  );
});

describe('helper threads compute the ranges, one connection writes them', () => {
  it(
    'the same answer as the incremental path; a callback that changed its answer is decided by the statement',
    { timeout: 60_000 },
    async () => {
      const { db } = testDb();
      try {
        const h = new History(db);
        reconciler.setOptions(db, () => ({ now: h.t, stalePendingAfterMs: STALE }));
        const changed: number[] = [];
        for (let i = 0; i < 60; i++) {
          const id = h.collection({ amountMinor: 10_000 + i, currency: CURRENCIES[i % 3]! });
          if (i % 10 === 1) h.rejected(id);
          else if (i % 10 === 2) h.unknown(id);
          else h.accepted(id);
          if (i % 10 === 3) h.redirect(id, 'COMPLETED');
          if (i % 10 === 4) h.redirect(id, 'COMPLETED'); // and the callback says FAILED: they disagree
          if (i % 10 === 6) h.redirect(id, 'FAILED'); // agrees with one of the callback's two answers
          if (i % 10 === 7) h.redirect(id, 'CANCELLED'); // agrees with neither
          if (i % 10 === 3) h.callback(id, 'COMPLETED');
          if (i % 10 === 4) h.callback(id, 'FAILED');
          if (i % 10 >= 5 && i % 10 <= 7) {
            h.callback(id, i % 10 === 7 ? 'FAILED' : 'COMPLETED', { amountMinor: i % 10 === 7 ? 1 : 10_000 + i });
            h.callback(id, i % 10 === 7 ? 'COMPLETED' : 'FAILED');
            changed.push(id);
          }
          if (i % 10 === 8) h.callback(id, 'COMPLETED', { payloadOnly: true });
          if (i % 10 === 9) {
            h.callback(id, 'COMPLETED');
            h.badSignature(id);
          }
        }
        const now = h.t + STALE;
        reconciler.due(db, { now, stalePendingAfterMs: STALE });
        const incremental = db.prepare(SNAPSHOT).all();

        db.exec('DELETE FROM reconciliation');
        for (const sql of kindSetsSql()) db.exec(sql);
        db.prepare(RECONCILE_RANGE_SQL).run({ lo: 1, hi: 1e9, now, stale: STALE });
        const kinds = db
          .prepare(`SELECT outcome, kinds FROM reconciliation WHERE collection_id IN (${changed.join(',')})`)
          .all() as {
          outcome: string;
          kinds: string;
        }[];
        expect(kinds).toHaveLength(changed.length);
        for (const k of kinds) {
          expect(k.outcome).not.toBe('?');
          expect(JSON.parse(k.kinds)).toContain('final_status_changed');
        }

        // The writer computes ranges too, but a helper that starts slowly (tsx here) may leave it every
        // one: writerComputes false makes the helpers compute them all, so their path is covered.
        const only = { now, stalePendingAfterMs: STALE, batchSize: 7, threads: 2, writerComputes: false };
        db.exec('DELETE FROM reconciliation');
        const r = await reconcileAllOnThreads(db, only);
        expect(r.collections).toBe(60);
        expect(db.prepare(SNAPSHOT).all()).toEqual(incremental);
        db.exec('DELETE FROM reconciliation');
        expect((await reconcileAllOnThreads(db, { ...only, writerComputes: true })).collections).toBe(60);
        expect(db.prepare(SNAPSHOT).all()).toEqual(incremental);
        // Some ranges already stored: the helpers compare with the stored rows, skip only the empty ranges.
        db.exec('DELETE FROM reconciliation WHERE collection_id > 30');
        await reconcileAllOnThreads(db, only);
        expect(db.prepare(SNAPSHOT).all()).toEqual(incremental);

        // As the app's worker runs it, foreign keys off: new rows go in by SQLite's transfer
        // optimization, rows that replace stored ones (here made wrong) are upserted, the rest left alone.
        db.pragma('foreign_keys = OFF');
        db.exec('DELETE FROM reconciliation WHERE collection_id % 2 = 0');
        db.exec(
          "UPDATE reconciliation SET outcome = 'pending', kinds = '[]', callback_status = NULL WHERE collection_id % 3 = 0",
        );
        await reconcileAllOnThreads(db, only);
        expect(db.prepare(SNAPSHOT).all()).toEqual(incremental);
      } finally {
        db.close();
      }
    },
  );
});

describe('reads never write; every source enters the one path', () => {
  it('summary, exceptions, orphans and detail are pure reads, even with a pending collection past its stale time', () => {
    const { db } = testDb();
    const h = new History(db);
    const a = h.collection();
    h.accepted(a);
    const b = h.collection({ amountMinor: 5000, currency: 'KES' });
    h.accepted(b);
    h.callback(b, 'COMPLETED', { amountMinor: 4000 });
    h.orphanCallback('NOT-OURS-1');
    const later = { now: h.t + 2 * STALE, stalePendingAfterMs: STALE };
    const changes = () => db.prepare('SELECT total_changes()').pluck().get() as number;
    const table = () => db.prepare(SNAPSHOT).all();
    const before = { changes: changes(), table: table() };
    const summary = getSummary(db, later);
    listExceptions(db, {}, later);
    listOrphanCallbacks(db);
    getDetail(db, a, later);
    expect(changes()).toBe(before.changes);
    expect(table()).toEqual(before.table);
    expect(summary.byOutcome).toMatchObject({ pending: 1, amount_mismatch: 1 });
    // time passing is applied by the sweep (a writer), then the reads show it
    expect(reconciler.due(db, later)).toBe(1);
    expect(getSummary(db, later).byOutcome).toMatchObject({ pending: 0, stale_pending: 1, amount_mismatch: 1 });
  });

  it('callbacks imported from a file are reconciled as they are stored, with no read involved', async () => {
    const { db, dir } = testDb();
    const h = new History(db);
    const signingKey = crypto.randomBytes(32).toString('hex');
    const lines: string[] = [];
    const ids: number[] = [];
    for (const [amount, paid] of [
      [150_000, 150_000],
      [80_000, 70_000],
    ] as const) {
      const id = h.collection({ amountMinor: amount, currency: 'UGX' });
      h.accepted(id);
      ids.push(id);
      const body = h.callbackBody(id, 'COMPLETED', { amountMinor: paid });
      const p = body.payload as { merchant_reference: string; internal_reference: string };
      const signed = signedString({
        event: body.event,
        merchant_reference: p.merchant_reference,
        internal_reference: p.internal_reference,
        transaction_type: 'Collection',
        transaction_status: 'COMPLETED',
      });
      const hmac = `t=${Math.floor(h.t / 1000)},s=${crypto.createHmac('sha256', signingKey).update(signed).digest('hex')}`;
      lines.push(JSON.stringify({ headers: { 'hmac-signature': hmac }, body }));
    }
    const file = path.join(dir, 'callbacks.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const row = db.prepare('SELECT outcome, import_status, is_exception FROM reconciliation WHERE collection_id = ?');
    expect(ids.map((id) => row.get(id))).toEqual([
      { outcome: 'pending', import_status: null, is_exception: 0 },
      { outcome: 'pending', import_status: null, is_exception: 0 },
    ]);
    const summary = await importCallbacksJsonl(db, file, {
      keys: { signingKey, servicePublicKey: null },
      clock: { now: () => h.t },
      ledger,
    });
    expect(summary).toMatchObject({ imported: 2, badSignatures: 0, malformed: 0 });
    expect(ids.map((id) => row.get(id))).toEqual([
      { outcome: 'matched', import_status: 'COMPLETED', is_exception: 0 },
      { outcome: 'amount_mismatch', import_status: 'COMPLETED', is_exception: 1 },
    ]);
  });
});

describe('the full recompute reads one covering index', () => {
  it('the plan: the covering index of event terms, and the partial index for amounts only in a payload', () => {
    const { db } = testDb();
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ lo: 1, hi: 10, now: 0, stale: 0 }) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n');
    for (const sql of kindSetsSql()) db.exec(sql);
    expect(plan(RECONCILE_RANGE_SQL)).toMatch(
      /USING COVERING INDEX collection_events_reconcile_terms \(collection_id=\?\)/,
    );
    expect(plan(NEEDS_JS_SQL)).toMatch(/USING (COVERING )?INDEX collection_events_payload_amount/);
  });

  it('migration 014 indexes exactly the per-event terms the statement sums (else SQLite evaluates them per event)', () => {
    expect(migration014).toContain(`${reconcileIndexSql()};`);
  });

  it('the statement reads the terms as index columns: no CASE is evaluated per event', () => {
    const { db } = testDb();
    for (const sql of kindSetsSql()) db.exec(sql);
    const ops = db.prepare(`EXPLAIN ${RECONCILE_RANGE_SQL}`).all({ lo: 1, hi: 10, now: 0, stale: 0 }) as {
      opcode: string;
      p1: number;
      p4: unknown;
    }[];
    // The event loop of the aggregate: from the first aggregate step to the Next of the index cursor.
    const first = ops.findIndex((o) => o.opcode === 'AggStep');
    const next = ops.findIndex((o, i) => i > first && o.opcode === 'Next');
    const loop = ops.slice(first, next);
    // Only column reads, the mismatch comparisons and the aggregate steps: no string compared per event.
    expect(loop.filter((o) => o.opcode === 'String8')).toEqual([]);
    expect(loop.filter((o) => o.opcode === 'AggStep').length).toBe(5);
  });

  it('the reconciliation table: the partial indexes on outcome find every outcome but matched', () => {
    const { db } = testDb();
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ lo: 1, hi: 10 }) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n');
    expect(plan(UNDECIDED_SQL)).toMatch(/USING (COVERING )?INDEX reconciliation_notable \(outcome=\?/);
    expect(plan(`SELECT outcome, COUNT(*) FROM reconciliation WHERE ${NOT_MATCHED} GROUP BY outcome`)).toMatch(
      /USING COVERING INDEX reconciliation_notable/,
    );
    expect(plan('SELECT COUNT(*) FROM reconciliation WHERE is_exception = 1')).toMatch(
      /USING COVERING INDEX reconciliation_open/,
    );
  });
});
