// The reconciliation rules are computed by three routes: classify() in JavaScript (the incremental path,
// one collection after each event: main/reconcile/classify.ts), the full recompute's statement over ranges
// of collections (main/store/sqlite/reconcile/full-pass-sql.ts, classify() only for what it leaves), and the
// group route of the incremental path (the same statement over a group's ids: a receiver's group commit, a
// team desk's pulled batch; main/store/sqlite/reconcile/full-pass.ts classifyIdsLeavingRest). They must
// give identical rows. On thousands of randomized histories (intents, initialize answers, redirects,
// callbacks, imports, flips of a final status, resolutions and a person's statuses, forged reports, repeated
// deliveries, waits past the stale time) stored in random groups: every group's rows equal classify()'s for
// the same collections at the same time, and at the end the full recompute's rows equal classify()'s for
// every collection.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../main/collections/event-rules.js';
import type { EventKind, EventSource, SignatureState } from '../../main/collections/model.js';
import { formatMinor } from '../../main/money/index.js';
import { reconcileCollection, type GroupRoute } from '../../main/reconcile/incremental.js';
import { reconcileAll } from '../../main/reconcile/reconcile.js';
import { writeTransaction } from '../../main/store/sqlite/transaction.js';
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
  FROM reconciliation WHERE collection_id IN (SELECT value FROM json_each(?)) ORDER BY collection_id`;

/**
 * Plays each collection's steps through appendEvent, interleaved across collections, in groups of
 * `groups` sizes (each one reconcileOnceAfter, as the receiver's group commit); after each group, its
 * collections' rows are compared with classify()'s at the same time.
 */
function play(h: History, collections: Spec[], order: number[], groups: number[]): number {
  const ids = collections.map((c) => h.collection({ amountMinor: c.amount, currency: c.currency }));
  const stored: NewEvent[][] = ids.map(() => []);
  const cursor = ids.map(() => 0);
  let n = 0;
  const next = (i: number, touched: Set<number>) => {
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
      // Only a stored event reconciles its collection (a replay is not stored).
      if (ledger.append(h.db, ev).inserted) touched.add(id);
      stored[i]!.push(ev);
    }
  };
  const left = collections.map((c) => c.steps.length);
  const steps: number[] = [];
  for (const i of order)
    if (left[i]! > 0) {
      steps.push(i);
      left[i]! -= 1;
    }
  left.forEach((k, i) => {
    for (let j = 0; j < k; j++) steps.push(i);
  });
  let compared = 0;
  for (let at = 0, g = 0; at < steps.length; g++) {
    const size = groups.length ? groups[g % groups.length]! : 1;
    const touched = new Set<number>();
    reconciler.onceAfter(h.db, () => {
      for (const i of steps.slice(at, at + size)) next(i, touched);
    });
    at += size;
    const json = JSON.stringify([...touched].sort((a, b) => a - b));
    const grouped = h.db.prepare(SNAPSHOT).all(json);
    const now = h.t + 1000;
    writeTransaction(h.db, () => {
      for (const id of touched) reconcileCollection(h.db, id, { now, stalePendingAfterMs: STALE });
    });
    expect(grouped).toEqual(h.db.prepare(SNAPSHOT).all(json));
    compared += grouped.length;
  }
  return compared;
}

/** Every reconciliation row but when it was computed, for the collections of a JSON array of ids. */
function rows(h: History, ids: number[]): unknown[] {
  return h.db.prepare(SNAPSHOT).all(JSON.stringify(ids));
}

describe('the reconciliation routes agree', () => {
  it(
    'randomized histories in random groups: each group leaves the rows classify() gives at that time, and the full recompute gives them all',
    { timeout: 300_000 },
    async () => {
      let compared = 0;
      let histories = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(collectionArb, { minLength: 1, maxLength: 60, size: 'max' }),
          fc.array(fc.nat(59), { maxLength: 300, size: 'max' }),
          fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 8 }),
          fc.constantFrom<GroupRoute>('sql', 'sql', 'rules'),
          async (collections, interleave, groups, route) => {
            const { db } = testDb();
            try {
              const h = new History(db);
              // The group route is a setting of the connection; both must leave classify()'s rows.
              reconciler.setGroupRoute(db, route);
              reconciler.setOptions(db, () => ({ now: h.t + 1000, stalePendingAfterMs: STALE }));
              compared += play(
                h,
                collections,
                interleave.filter((i) => i < collections.length),
                groups,
              );
              histories += collections.length;
              // The full recompute, at a later time than any group's (stale times pass), against classify().
              const ids = db.prepare('SELECT id FROM collections ORDER BY id').pluck().all() as number[];
              const now = h.tick(STALE) + 1000;
              await reconcileAll(db, { now, stalePendingAfterMs: STALE });
              const full = rows(h, ids);
              writeTransaction(db, () => {
                for (const id of ids) reconcileCollection(db, id, { now, stalePendingAfterMs: STALE });
              });
              expect(full).toEqual(rows(h, ids));
            } finally {
              db.close();
            }
          },
        ),
        { numRuns: 100 },
      );
      expect(histories).toBeGreaterThan(2000);
      expect(compared).toBeGreaterThan(1000);
    },
  );
});
