// Re-basing a desk on the team record as it is after it went back (rollback.ts): every reference the record
// changed after the common point (and those it lost) removed from the local copy and applied again from
// the record, in seq order, through the one apply path, in one SQLite transaction with the new chain head,
// marks, journal and seq, so the copy equals a replay of the record, row for row.
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { type ChainHead } from '../../store/sqlite/team/chain-head.js';
import { lastSeq, setLastSeq } from '../../store/sqlite/team/sync-state.js';
import {
  deferForeignKeys,
  forgetAfter,
  heldEventsByKeys,
  keepLostEvents,
  keepRebasedHead,
  keepRollback,
  keepWitnessed,
  keptCollectionIds,
  keptRollback,
  parkOutbox,
  removeReferences,
  repointOutbox,
  unsentOutboxOf,
  clearChainAlarms,
  type HeldEventRow,
  type LostEventRow,
  type RollbackRow,
  type WitnessRow,
} from '../../store/sqlite/team/rollback.js';
import { selectEventsOfReferences, selectNewestPollSeqs } from '../../store/pg/rollback.js';
import { collectionIdOf } from '../../store/sqlite/ledger/intent-rows.js';
import { markRefold } from '../../store/sqlite/team/refold.js';
import { checkChain, GENESIS } from '../chain.js';
import { eventFromRaw, newestSeq, pullPageRaw, type ChainedEvent } from '../events.js';
import { toSafeInteger } from '../pool.js';
import { applyEvents } from './apply.js';
import { witnessRows } from './witness.js';
import type { WentBack } from './rollback-find.js';
import type { Candidate } from './rollback-candidates.js';
import type { RollbackContext } from './rollback-context.js';
import { localEvent, PAGE } from './rollback-context.js';

/** The record as it is after the common point, read and checked before the transaction that re-bases on it. */
interface RecordAfter {
  at: ChainHead;
  marks: ChainHead[];
  witnessed: WitnessRow[];
  /** The references to apply again: those the record changed after the common point, and those it lost. */
  list: string[];
  history: ChainedEvent[];
  polls: Awaited<ReturnType<typeof selectNewestPollSeqs>>;
}

/** What the desk keeps of an event the record lost and nobody could put back: its own copy, else the witness's. */
function lostEventRow(c: Candidate, held: HeldEventRow | null, foundAt: number): LostEventRow {
  const putBack = c.putBack;
  return {
    event_key: c.key,
    seq: c.seq,
    merchant_reference: c.reference || held?.merchant_reference || '',
    source: held?.source ?? ('event' in putBack ? putBack.event.source : 'unknown'),
    kind: held?.kind ?? ('event' in putBack ? putBack.event.kind : 'unknown'),
    status: held?.status ?? ('event' in putBack ? (putBack.event.status ?? null) : null),
    reason: 'why' in putBack ? putBack.why : 'not back in the team record yet',
    event: JSON.stringify(held ?? ('event' in putBack ? putBack.event : { key: c.key })),
    found_at: foundAt,
  };
}

/** Reads the record after the common point, checked as a chain from there; null when the desk closed meanwhile. */
async function readRecordAfter(
  ctx: RollbackContext,
  w: WentBack,
  lost: readonly Candidate[],
): Promise<RecordAfter | null> {
  const { pool, login, horizonMs } = ctx;
  const newest = await newestSeq(pool, 'read how far the team record goes');
  // The record after the common point, checked as a chain from the hash this desk verified there.
  const refs = new Set<string>();
  const witnessed: WitnessRow[] = [];
  const marks: ChainHead[] = [];
  let at: ChainHead = { seq: w.common.seq, hash: w.common.seq === 0 ? GENESIS : w.common.hash };
  const horizon = ctx.clock.now() - horizonMs;
  for (;;) {
    if (ctx.stopped()) return null;
    const page = await ctx.ask('read the team record', () => pullPageRaw(pool, at.seq, 5_000, newest));
    at = checkChain(at, page.events, (m) => marks.push(m));
    for (const e of page.events) refs.add(e.merchantReference);
    witnessed.push(
      ...witnessRows(
        page.events.filter((e) => e.recordedAt >= horizon),
        login,
      ),
    );
    if (!page.more) break;
  }
  for (const c of lost) if (c.reference) refs.add(c.reference);
  const list = [...refs];
  const history: ChainedEvent[] = [];
  for (let i = 0; i < list.length; i += PAGE) {
    const rows = await ctx.ask('read the events of the payments the record changed', () =>
      selectEventsOfReferences(pool, list.slice(i, i + PAGE), at.seq),
    );
    for (const r of rows) history.push(eventFromRaw(r));
  }
  history.sort((a, b) => a.seq - b.seq);
  const polls = await ctx.ask('read how far the balances and payment options go', () => selectNewestPollSeqs(pool));
  return ctx.stopped() ? null : { at, marks, witnessed, list, history, polls };
}

export async function rebase(
  ctx: RollbackContext,
  w: WentBack,
  lost: readonly Candidate[],
  found: RollbackRow,
): Promise<number> {
  const { db, logger, ledger } = ctx;
  const read = await readRecordAfter(ctx, w, lost);
  if (!read) return 0;
  const { at, list, history, marks, witnessed, polls } = read;
  const now = ctx.clock.now();
  const verify = ctx.verify();
  const heldRows = heldEventsByKeys(
    db,
    lost.map((c) => c.key),
  );
  const heldByKey = new Map(heldRows.map((r) => [r.dedupe_key!, r]));
  const applied = writeTransaction(db, () => {
    deferForeignKeys(db);
    const keep = unsentOutboxOf(db, list);
    keepLostEvents(
      db,
      lost.map((c) => lostEventRow(c, heldByKey.get(c.key) ?? null, found.found_at)),
    );
    const idFor = keptCollectionIds(db, list);
    removeReferences(db, list);
    parkOutbox(
      db,
      keep.map((k) => k.outbox_id),
    );
    const r = applyEvents(db, history, at.seq, now, { ledger, verify, idFor });
    for (const k of keep) {
      const collectionId = collectionIdOf(db, k.merchant_reference) ?? null;
      const again = ledger.append(
        db,
        localEvent(k, k.kind, {
          collectionId,
          dedupeKey: k.event_key,
          paymentUrl: k.payment_url,
          statusMessage: k.status_message,
        }),
      );
      repointOutbox(db, k.outbox_id, again.eventId);
      // Appended as it was; a refused one is no fact, and this desk's events still to send fold in the
      // record's order once it has them: folded again after the pull (sync/refold.ts).
      markRefold(db, k.merchant_reference, now);
    }
    forgetAfter(db, w.common.seq);
    keepRebasedHead(db, at, marks, now);
    keepWitnessed(db, witnessed, now);
    clearChainAlarms(db);
    setLastSeq(db, 'events', at.seq, now);
    for (const stream of ['balance_snapshots', 'payment_option_lists'] as const) {
      const theirs = polls[stream] === null ? 0 : toSafeInteger(polls[stream], 'seq');
      if (theirs < lastSeq(db, stream)) setLastSeq(db, stream, theirs, now);
    }
    keepRollback(db, { ...found, ...keptRollback(db), phase: 'rebased', rebased_at: now, rebased_seq: at.seq });
    return r.applied;
  });
  ctx.chain.rebased(at);
  if (lost.length)
    logger.warn(
      {
        lost: lost.map((c) => ({
          reference: c.reference,
          seq: c.seq,
          eventKey: c.key,
          reason: 'why' in c.putBack ? c.putBack.why : 'not back in the team record yet',
        })),
      },
      'team sync: events the team database lost that this desk holds and could not put back (kept, and listed in Settings, Team)',
    );
  logger.warn(
    {
      lostFrom: found.lost_from,
      lostTo: found.lost_to,
      previousHead: found.old_head_seq,
      followsFrom: at.seq,
      references: list.length,
      unrestored: lost.length,
    },
    'team sync: re-based on the team record after it went back in time; the head this desk had verified is kept as evidence',
  );
  ctx.changed();
  try {
    ctx.onRebased?.(applied);
  } catch (e) {
    logger.warn({ err: e }, 'team sync: onRebased failed');
  }
  return applied;
}
