// A group commit reconciles the collections it touched with the full recompute's statement (set-based,
// main/store/sqlite/reconcile/full-pass.ts classifyIdsLeavingRest) and classify() only for what the statement leaves: on randomized histories
// stored in random groups, every group's rows equal classify()'s for the same collections at the same time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../main/collections/event-rules.js';
import { appendEvent } from '../../main/collections/ledger.js';
import type { EventKind, EventSource, SignatureState } from '../../main/collections/model.js';
import { formatMinor } from '../../main/money/index.js';
import { reconcileCollection, reconcileOnceAfter, setReconcileOptions } from '../../main/reconcile/incremental.js';
import { GROUPS_SET_BASED } from '../../main/store/sqlite/reconcile/full-pass-sql.js';
import { writeTransaction } from '../../main/store/sqlite/transaction.js';
import { History, testDb } from '../reconcile/fixtures.js';

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
    const s = c.steps[cursor[i]++]!;
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
      if (appendEvent(h.db, ev).inserted) touched.add(id);
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
    reconcileOnceAfter(h.db, () => {
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

describe('a group commit reconciles its collections set-based, as classify() would', () => {
  it("the full recompute's statement still selects by an id range, which the group's variant replaces by its ids", () => {
    expect(GROUPS_SET_BASED).toBe(true);
  });
  it(
    'randomized histories in random groups: each group leaves the rows classify() gives at that time',
    { timeout: 120_000 },
    () => {
      let compared = 0;
      fc.assert(
        fc.property(
          fc.array(collectionArb, { minLength: 1, maxLength: 60, size: 'max' }),
          fc.array(fc.nat(59), { maxLength: 300, size: 'max' }),
          fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 8 }),
          (collections, interleave, groups) => {
            const { db } = testDb();
            try {
              const h = new History(db);
              setReconcileOptions(db, () => ({ now: h.t + 1000, stalePendingAfterMs: STALE }));
              compared += play(
                h,
                collections,
                interleave.filter((i) => i < collections.length),
                groups,
              );
            } finally {
              db.close();
            }
          },
        ),
        { numRuns: 40 },
      );
      expect(compared).toBeGreaterThan(500);
    },
  );
});
