// What a desk says about the team events' hash chain (team/sync/chain-check.ts), in one place for the
// status bar (main/app/status.ts) and Settings, Team (renderer): no imports, so both sides can use it.

/** The chain as the desk checked it: verified through a seq, or the first seq that does not match. */
export interface TeamChainState {
  verifiedSeq: number;
  /** When the last full re-check passed (ms since the epoch), or null. */
  recheckedAt: number | null;
  broken: { seq: number; reason: string } | null;
}

/** "Team record verified through seq N", or the alarm naming the first seq that does not match. */
export function chainWords(c: TeamChainState): { alarm: boolean; text: string } {
  if (c.broken)
    return {
      alarm: true,
      text: `Team record altered: seq ${c.broken.seq.toLocaleString('en')} does not match its hash chain (${c.broken.reason}). This desk shows what it verified, through seq ${c.verifiedSeq.toLocaleString('en')}.`,
    };
  if (c.verifiedSeq === 0) return { alarm: false, text: 'Team record: nothing verified yet' };
  return { alarm: false, text: `Team record verified through seq ${c.verifiedSeq.toLocaleString('en')}` };
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

const seqText = (n: number) => n.toLocaleString('en');
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** What a desk says of a record that went back: never the tamper alarm's words. */
export function rollbackWords(r: TeamRollbackState): { text: string; short: string } {
  const lost = `The team database lost events ${seqText(r.lostFrom)}–${seqText(r.lostTo)}, probably a failover or a restore from backup; this desk holds them`;
  if (r.phase === 'restoring')
    return {
      text: `${lost} and is putting back what it can. It shows what it verified, through seq ${seqText(r.previousHead.seq)}.`,
      short: `Team database went back: lost seq ${seqText(r.lostFrom)}–${seqText(r.lostTo)}, restoring`,
    };
  const parts: string[] = [];
  if (r.restored) parts.push(`it put back ${plural(r.restored, 'event')}`);
  if (r.present) parts.push(`${r.present.toLocaleString('en')} ${r.present === 1 ? 'was' : 'were'} back already`);
  if (r.unrestoredCount)
    parts.push(`${plural(r.unrestoredCount, 'event')} could not be put back by this desk (listed in Settings, Team)`);
  if (!parts.length) parts.push('all of them are back in the team record (put back by other desks or serve)');
  return {
    text: `${lost}: ${parts.join('; ')}. It follows the team record again from seq ${seqText(r.rebasedSeq ?? r.commonSeq)}.`,
    short: r.unrestoredCount
      ? `Team database went back: ${plural(r.unrestoredCount, 'lost event')} not put back`
      : `Team database went back: lost events put back`,
  };
}
