// Walking the team events' hash chain in pages (a desk's re-check, the catch-up of a head behind the
// applied seq), and comparing what a walk passes with the marks this desk kept.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { keptMarks } from '../../store/sqlite/team/chain-head.js';
import { ChainMovedError, checkChain, START, type ChainHead } from '../chain.js';
import { pullPageRaw } from '../events.js';

/**
 * A walk's onMark that compares each mark with the one this desk kept at that seq: a kept mark the walk
 * passes without meeting (its row is gone or moved) or one whose hash differs is where the record
 * changed since this desk verified it, even if every later hash was recomputed.
 */
function againstKept(kept: readonly ChainHead[]): { onMark: (m: ChainHead) => void; lastGood: () => number } {
  let i = 0;
  let lastGood = 0;
  const onMark = (m: ChainHead): void => {
    const k = kept[i];
    if (k && k.seq < m.seq)
      throw new ChainMovedError(
        k.seq,
        `this desk verified seq ${k.seq}, which the record no longer has there (removed or moved after seq ${lastGood})`,
      );
    if (k && k.seq === m.seq) {
      if (!k.hash.equals(m.hash))
        throw new ChainMovedError(
          k.seq,
          `its hash is not the one this desk verified: the record was rewritten after seq ${lastGood} and at or before seq ${k.seq}, and its later hashes recomputed`,
        );
      lastGood = k.seq;
      i++;
    }
  };
  return { onMark, lastGood: () => lastGood };
}

/**
 * Walks team.events from `from` up to `uptoSeq` in pages, checking the chain; returns the head reached
 * (its seq is the last event at or below uptoSeq). Throws ChainBrokenError at the first mismatch.
 */
export async function walkChain(
  pool: pg.Pool,
  from: ChainHead,
  uptoSeq: number,
  o: {
    page?: number;
    /** Rest between pages this many times as long as the page took (a background re-check: 1, half the pace). */
    pace?: number;
    stopped?: () => boolean;
    onMark?: (m: ChainHead) => void;
  } = {},
): Promise<ChainHead> {
  let head = from;
  for (;;) {
    if (o.stopped?.()) return head;
    const started = performance.now();
    const page = await pullPageRaw(pool, head.seq, o.page ?? 5_000, uptoSeq);
    head = checkChain(head, page.events, o.onMark);
    if (!page.more) return head;
    const rest = (performance.now() - started) * (o.pace ?? 0);
    if (rest >= 1) await new Promise((r) => setTimeout(r, rest));
  }
}

/**
 * A re-check: walks the record from its first event up to `upto`, compared with the head (and marks) this
 * desk kept, if any. Returns the head reached and the marks passed (to keep, when none was kept), or null
 * when stopped; throws ChainMovedError where the record no longer holds what this desk verified.
 */
export async function walkAgainstKept(
  pool: pg.Pool,
  db: Db,
  kept: ChainHead | null,
  upto: number,
  o: { page?: number | undefined; pace?: number | undefined; stopped?: (() => boolean) | undefined },
): Promise<{ head: ChainHead; marks: ChainHead[] } | null> {
  const marks: ChainHead[] = [];
  const compare = kept ? againstKept(keptMarks(db, kept.seq)) : null;
  const reached = await walkChain(pool, START, upto, {
    page: o.page ?? 5_000,
    pace: o.pace ?? 1,
    ...(o.stopped ? { stopped: o.stopped } : {}),
    onMark: (m) => (compare ? compare.onMark(m) : marks.push(m)),
  });
  if (o.stopped?.()) return null;
  if (kept && reached.seq < kept.seq)
    throw new ChainMovedError(
      kept.seq,
      `this desk verified seq ${kept.seq}, which the record no longer has (the record ends at seq ${reached.seq})`,
    );
  if (kept && !reached.hash.equals(kept.hash))
    throw new ChainMovedError(
      kept.seq,
      `its hash is not the one this desk verified: the record was rewritten after seq ${compare?.lastGood() ?? 0} and at or before seq ${kept.seq}, and its later hashes recomputed`,
    );
  return { head: reached, marks };
}
