// Putting back what the team record lost (rollback.ts) through team.restore_events, exactly once by event
// key, in the old order, asking which of them it still lacks; then the re-base (rollback-rebase.ts).
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { countRestored } from '../../store/sqlite/team/rollback.js';
import { restoreEvents, selectSeqsOfKeys } from '../../store/pg/rollback.js';
import { restoreRow } from '../restore-row.js';
import { intentEventKey } from '../record.js';
import type { NewTeamEvent } from '../events.js';
import type { Candidate } from './rollback-candidates.js';
import { keepRollback, keptRollback, type RollbackRow } from '../../store/sqlite/team/rollback.js';
import type { WentBack } from './rollback-find.js';
import { candidates, resolveHeld } from './rollback-candidates.js';
import { rebase } from './rollback-rebase.js';
import type { RollbackContext } from './rollback-context.js';
import { KEYS_PAGE, PAGE } from './rollback-context.js';

/** Of these keys, those the record does not hold (now). */
async function missingOf(ctx: RollbackContext, keys: readonly string[]): Promise<Set<string>> {
  const { pool } = ctx;
  const missing = new Set(keys);
  for (let i = 0; i < keys.length; i += KEYS_PAGE) {
    const rows = await ctx.ask('look up events in the team record', () =>
      selectSeqsOfKeys(pool, keys.slice(i, i + KEYS_PAGE)),
    );
    for (const r of rows) missing.delete(r.event_key);
  }
  return missing;
}
/** Puts these back, in their old order; counts the outcomes; returns the keys refused, with why. */
export async function putBack(ctx: RollbackContext, list: readonly Candidate[]): Promise<Map<string, string>> {
  const { pool, db, logger } = ctx;
  const refused = new Map<string, string>();
  const sorted = [...list].sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity) || a.order - b.order);
  let restored = 0;
  let present = 0;
  for (let i = 0; i < sorted.length; i += PAGE) {
    const rows = sorted.slice(i, i + PAGE).map((c) => {
      const p = c.putBack as Extract<Candidate['putBack'], { event: NewTeamEvent }>;
      // This desk's own intent of the last minutes goes back with its guard, in the same transaction.
      const guard = p.own ? ctx.ownGuards?.of(p.event.merchantReference) : null;
      return restoreRow(p.event, { seq: c.seq, recordedAt: p.recordedAt, actor: p.actor }, guard);
    });
    const out = await ctx.ask('put back events the team record lost', () => restoreEvents(pool, rows));
    for (const r of out) {
      if (r.outcome === 'restored') restored++;
      else if (r.outcome === 'present') present++;
      else refused.set(r.event_key, r.reason ?? 'refused by the team database');
    }
  }
  writeTransaction(db, () => countRestored(db, restored, present));
  if (restored || present || refused.size)
    logger.info({ restored, present, refused: refused.size }, 'team sync: put back events the team database had lost');
  ctx.changed();
  return refused;
}

const sleep = (ms: number, stopped: () => boolean) =>
  new Promise<void>((resolve) => {
    const end = Date.now() + ms;
    const tick = () => (stopped() || Date.now() >= end ? resolve() : setTimeout(tick, Math.min(100, end - Date.now())));
    tick();
  });

/**
 * A rollback found: what this desk holds and the record lacks goes back (its own at once, others' signed
 * events after a short wait), what it cannot put back is listed, then the desk re-bases on the record.
 */
export async function handle(ctx: RollbackContext, w: WentBack): Promise<number> {
  const { db, logger } = ctx;
  const kept = keptRollback(db);
  const now = ctx.clock.now();
  // The same rollback found again (after a restart or an outage) keeps what was counted.
  const found: RollbackRow =
    kept && kept.phase === 'restoring' && kept.old_head_seq === w.head.seq && kept.old_head_hash.equals(w.head.hash)
      ? { ...kept, common_seq: w.common.seq, lost_from: w.lostFrom }
      : {
          found_at: now,
          common_seq: w.common.seq,
          lost_from: w.lostFrom,
          lost_to: w.head.seq,
          old_head_seq: w.head.seq,
          old_head_hash: w.head.hash,
          phase: 'restoring',
          restored: 0,
          present: 0,
          rebased_at: null,
          rebased_seq: null,
        };
  writeTransaction(db, () => keepRollback(db, found));
  if (found !== kept) {
    logger.warn(
      { lostFrom: found.lost_from, lostTo: found.lost_to, common: found.common_seq },
      `team sync: the team database lost events ${found.lost_from}–${found.lost_to} (probably a failover or a restore from backup); this desk holds them and puts back what it can`,
    );
  }
  ctx.changed();

  const all = candidates(ctx, w);
  const missing = await missingOf(ctx, [...all.keys()]);
  const lacking = [...all.values()].filter((c) => missing.has(c.key));
  // This desk's intents of the last minutes that the record lost and holds again, put back by another desk
  // without their guards (only this desk has the fingerprints): sent again with them, answered 'present'.
  const guarded = new Set((ctx.ownGuards?.all() ?? []).map((g) => intentEventKey(g.merchantReference)));
  const reguard = [...all.values()].filter((c) => guarded.has(c.key) && !missing.has(c.key));
  resolveHeld(ctx, [...lacking, ...reguard]);
  const mine = [...lacking, ...reguard].filter((c) => 'event' in c.putBack && c.putBack.own);
  const signed = lacking.filter((c) => 'event' in c.putBack && !c.putBack.own);
  const refused = new Map<string, string>();
  if (mine.length) for (const [k, why] of await putBack(ctx, mine)) refused.set(k, why);
  if (signed.length) {
    // The writers' own desks go first (their word and the record's old order); then the evidence.
    await sleep(ctx.othersAfterMs ?? 3_000, ctx.stopped);
    if (ctx.stopped()) return 0;
    const still = await missingOf(
      ctx,
      signed.map((c) => c.key),
    );
    const left = signed.filter((c) => still.has(c.key));
    if (left.length) for (const [k, why] of await putBack(ctx, left)) refused.set(k, why);
  }
  if (ctx.stopped()) return 0;
  const after = await missingOf(
    ctx,
    lacking.map((c) => c.key),
  );
  const lost = lacking
    .filter((c) => after.has(c.key))
    .map((c) =>
      refused.has(c.key) ? { ...c, putBack: { why: `refused by the team database: ${refused.get(c.key)}` } } : c,
    );
  return rebase(ctx, w, lost, keptRollback(db) ?? found);
}
