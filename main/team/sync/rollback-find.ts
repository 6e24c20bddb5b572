// Where the team record went back from what this desk verified (rollback.ts): the common point, found from
// the points of the chain this desk kept, and the difference between a rollback (what this desk verified
// after it is gone, or restored) and a rewrite (still there, changed: the tamper alarm).
import { keptHead, keptMarks, type ChainHead } from '../../store/sqlite/team/chain-head.js';
import {
  heldEventsByKeys,
  witnessedBelow,
  witnessedBetween,
  type HeldEventRow,
} from '../../store/sqlite/team/rollback.js';
import { ChainBrokenError, START } from '../chain.js';
import { newestSeq, pullPageRaw, type TeamEvent } from '../events.js';
import { pointsAt } from './rollback-context.js';
import type { ChainPointRow } from '../../store/pg/rollback.js';
import type { RollbackContext } from './rollback-context.js';
import { KEYS_PAGE, PAGE, POINTS_PAGE } from './rollback-context.js';
import { EVIDENCE_LIMITS, teamJson } from '../json-limits.js';

/** What a desk found when the record no longer reaches its head. */
export interface WentBack {
  /** The last seq the record still shares with this desk, with its hash and key (none at 0). */
  common: ChainHead & { key: string | null };
  head: ChainHead;
  /** The first seq this desk verified after the common point (common + 1 when it does not know). */
  lostFrom: number;
}
/**
 * The first of the columns this desk keeps of an event in which the record's event differs from the copy
 * it holds, in words; null when none does (the verdict's columns, kind, signature and note, are this desk's
 * own and not compared).
 */
function differsFromHeld(e: TeamEvent, held: HeldEventRow): string | null {
  const intent = e.source === 'intent';
  const pairs: [string, unknown, unknown][] = [
    ['merchant_reference', e.merchantReference, held.merchant_reference],
    ['internal_reference', e.internalReference, held.internal_reference],
    ['source', e.source, held.source],
    ['status', e.status, held.status],
    ['amount', e.amountMinor, held.amount_minor],
    ['currency', e.currency, held.currency],
    ['actor', e.actor, held.actor],
    ...(intent ? [] : ([['payload', e.payload, held.payload]] as [string, unknown, unknown][])),
  ];
  for (const [name, theirs, mine] of pairs)
    if ((theirs ?? null) !== (mine ?? null))
      return `its ${name} is ${JSON.stringify(theirs)}, this desk holds ${JSON.stringify(mine)}`;
  return null;
}
/** Whether a record event carries team.restore_events' mark (only that function may write it, migration 15). */
function isRestoration(evidence: string | null): boolean {
  if (!evidence || !evidence.includes('"restored"')) return false;
  const v = teamJson(evidence, EVIDENCE_LIMITS);
  return !!v && typeof v === 'object' && !Array.isArray(v) && 'restored' in v;
}
/**
 * Compares the record with what this desk verified: null when the record still holds the head; the
 * common point when it went back; throws ChainBrokenError when it was rewritten instead.
 */
export async function classify(ctx: RollbackContext): Promise<WentBack | null> {
  const { db } = ctx;
  const head = keptHead(db);
  if (!head || head.seq === 0) return null;
  const atHead = (await pointsAt(ctx, [head.seq])).get(head.seq);
  if (atHead && atHead.hash.equals(head.hash)) return null;

  // The last point this desk verified that the record still has: its witnessed events newest first,
  // then its marks, then the start of the record.
  let common: (ChainHead & { key: string | null }) | null = null;
  let below = head.seq;
  for (;;) {
    const page = witnessedBelow(db, below, POINTS_PAGE);
    if (!page.length) break;
    const found = await pointsAt(
      ctx,
      page.map((p) => p.seq),
    );
    const match = page.find((p) => found.get(p.seq)?.hash.equals(p.hash));
    if (match) {
      common = { ...match, key: found.get(match.seq)!.event_key };
      break;
    }
    below = page[page.length - 1]!.seq;
  }
  if (!common) {
    const marks = keptMarks(db, below - 1).reverse();
    for (let i = 0; i < marks.length && !common; i += PAGE) {
      const page = marks.slice(i, i + PAGE);
      const found = await pointsAt(
        ctx,
        page.map((m) => m.seq),
      );
      const match = page.find((m) => found.get(m.seq)?.hash.equals(m.hash));
      if (match) common = { ...match, key: found.get(match.seq)!.event_key };
    }
  }
  common ??= { ...START, key: null };

  // What this desk verified after the common point: is any of it still at its seq, rewritten?
  const known = witnessedBetween(db, common.seq, head.seq);
  for (let i = 0; i < known.length; i += KEYS_PAGE) {
    const page = known.slice(i, i + KEYS_PAGE);
    const found = await pointsAt(
      ctx,
      page.map((k) => k.seq),
    );
    for (const k of page) {
      const now = found.get(k.seq);
      if (now && now.event_key === k.event_key && !isRestoration(now.evidence))
        throw new ChainBrokenError(
          k.seq,
          `its hash is not the one this desk verified: the event was rewritten after this desk verified it (the record still holds it at seq ${k.seq}, changed)`,
        );
    }
  }
  if (known.length) return { common, head, lostFrom: known[0]!.seq };
  const held = await heldThrough(ctx, common.seq, head.seq);
  if ('rewritten' in held) throw held.rewritten;
  return { common, head, lostFrom: held.sharedUpTo + 1 };
}
/**
 * With nothing witnessed between the common point and the head (older than the journal), the record is
 * read from there and held against this desk's own copy, event by event: a rewrite when an event this
 * desk holds comes back with other content, or when the record still reaches the head with every event
 * one this desk holds (the chain's hash differs, so something it does not keep was changed); gone back
 * at the first event that is new to this desk or a restoration, or where the record ends before the head.
 */
async function heldThrough(
  ctx: RollbackContext,
  commonSeq: number,
  headSeq: number,
): Promise<{ rewritten: ChainBrokenError } | { sharedUpTo: number }> {
  const { pool, db } = ctx;
  let shared = commonSeq;
  for (let after = commonSeq; ;) {
    const page = await pullPageRaw(pool, after, 1_000, headSeq);
    for (const e of page.events) {
      const held = isRestoration(e.evidence) ? undefined : heldEventsByKeys(db, [e.eventKey])[0];
      if (!held) return { sharedUpTo: shared };
      const differs = differsFromHeld(e, held);
      if (differs)
        return {
          rewritten: new ChainBrokenError(
            e.seq,
            `its content is not what this desk holds (${differs}): the record was rewritten after this desk verified it, and its later hashes recomputed`,
          ),
        };
      shared = e.seq;
    }
    if (!page.more) break;
    after = page.lastSeq;
  }
  if ((await newestSeq(pool, 'read how far the team record goes')) >= headSeq)
    return {
      rewritten: new ChainBrokenError(
        headSeq,
        `its hash is not the one this desk verified: the record was rewritten after seq ${commonSeq} and at or before seq ${headSeq}, and its later hashes recomputed`,
      ),
    };
  return { sharedUpTo: shared };
}

/**
 * Looks at the record, one look at a time (shared by those asking meanwhile). A rewrite found is kept for a
 * minute against the same record at the head: a desk that raised the alarm looks at each pull, and finding
 * the common point again walks its whole journal.
 */
export function looker(ctx: RollbackContext): () => Promise<WentBack | null> {
  const { db } = ctx;
  let probing: Promise<WentBack | null> | null = null;
  let rewrite: { at: number; head: string; error: ChainBrokenError } | null = null;
  return () => {
    probing ??= (async () => {
      const head = keptHead(db);
      if (head && rewrite && performance.now() - rewrite.at < 60_000) {
        const now = (await pointsAt(ctx, [head.seq])).get(head.seq);
        if (`${head.seq}:${now?.hash.toString('hex') ?? '-'}` === rewrite.head) throw rewrite.error;
      }
      try {
        return await classify(ctx);
      } catch (e) {
        if (e instanceof ChainBrokenError && head) {
          const now = (await pointsAt(ctx, [head.seq]).catch(() => new Map<number, ChainPointRow>())).get(head.seq);
          rewrite = { at: performance.now(), head: `${head.seq}:${now?.hash.toString('hex') ?? '-'}`, error: e };
        }
        throw e;
      }
    })().finally(() => {
      probing = null;
    });
    return probing;
  };
}
