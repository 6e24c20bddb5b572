// What a desk says about the team events' hash chain (team/sync/chain-check.ts), in one place for the
// status bar (main/app/status.ts) and Settings, Team (renderer), as words both sides render.
import { english, words, type MessageId, type Words } from '../words/words.shared.js';

/** The chain as the desk checked it: verified through a seq, or the first seq that does not match. */
export interface TeamChainState {
  verifiedSeq: number;
  /** When the last full re-check passed (ms since the epoch), or null. */
  recheckedAt: number | null;
  broken: { seq: number; reason: string } | null;
}

/** "Team record verified through seq N", or the alarm naming the first seq that does not match. */
export function chainWords(c: TeamChainState): { alarm: boolean; text: string; words: Words } {
  const w = c.broken
    ? words('team.chain.altered', { seq: c.broken.seq, reason: c.broken.reason, verifiedSeq: c.verifiedSeq })
    : c.verifiedSeq === 0
      ? words('team.chain.nothingYet')
      : words('team.chain.verified', { seq: c.verifiedSeq });
  return { alarm: c.broken !== null, text: english(w), words: w };
}

/**
 * The team record went back in time from what this desk verified (an asynchronous failover, a restore
 * from backup: team/sync/rollback.ts), and what the desk did about it. Not tampering: what was lost is
 * put back by the witnesses that held it, and the desk follows the record again from there.
 */
export interface TeamRollbackState {
  /** The seqs this desk verified that the record no longer holds as it verified them. */
  lostFrom: number;
  lostTo: number;
  /** The last seq the record still shares with what this desk verified. */
  commonSeq: number;
  foundAt: number;
  /** 'restoring': the desk shows what it verified and puts back what it holds; 'rebased': it follows the record again. */
  phase: 'restoring' | 'rebased';
  /** The head this desk had verified before (kept as evidence): seq and hash (hex). */
  previousHead: { seq: number; hash: string };
  /** Events this desk put back, and those it found back already (another witness put them back). */
  restored: number;
  present: number;
  /** Once re-based: the seq it follows the record from, and when. */
  rebasedSeq: number | null;
  rebasedAt: number | null;
  /** Events this desk held that the record lost and that it could not put back, by reference and seq (the first 100). */
  unrestored: {
    eventKey: string;
    reference: string;
    seq: number | null;
    source: string;
    kind: string;
    reason: string;
  }[];
  unrestoredCount: number;
}

/** What a desk says of a record that went back: never the tamper alarm's words. */
export function rollbackWords(r: TeamRollbackState): { text: string; short: string; words: Words; shortWords: Words } {
  const lost = { lostFrom: r.lostFrom, lostTo: r.lostTo };
  let w: Words;
  let short: Words;
  if (r.phase === 'restoring') {
    w = words('team.rollback.restoring', { ...lost, seq: r.previousHead.seq });
    short = words('team.rollback.shortRestoring', lost);
  } else {
    const parts: MessageId[] = [];
    if (r.restored) parts.push('team.rollback.part.restored');
    if (r.present) parts.push('team.rollback.part.present');
    if (r.unrestoredCount) parts.push('team.rollback.part.unrestored');
    if (!parts.length) parts.push('team.rollback.part.allBack');
    const id = (['team.rollback.rebased1', 'team.rollback.rebased2', 'team.rollback.rebased3'] as const)[
      parts.length - 1
    ]!;
    w = words(id, {
      ...lost,
      restored: r.restored,
      present: r.present,
      unrestored: r.unrestoredCount,
      seq: r.rebasedSeq ?? r.commonSeq,
      ...Object.fromEntries(parts.map((p, i) => [`part${i + 1}Id`, p])),
    });
    short = r.unrestoredCount
      ? words('team.rollback.shortUnrestored', { unrestored: r.unrestoredCount })
      : words('team.rollback.shortBack');
  }
  return { text: english(w), short: english(short), words: w, shortWords: short };
}
