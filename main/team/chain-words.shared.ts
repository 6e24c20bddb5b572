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
