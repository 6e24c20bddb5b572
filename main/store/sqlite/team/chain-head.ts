// The head of the team events' hash chain this desk verified, and the marks passed on the way
// (team_chain, team_chain_marks: migration 17). team/chain.ts computes them; this keeps them.
import type { ReadDb, WriteDb } from '../connection.js';
import { readStatement, statement } from '../statements.js';
import { writeTransaction } from '../transaction.js';
import { bytes, int, maybe, rowMapper } from '../../columns.js';

/** A point of the chain: an event's seq and its hash (the chain's head, or a mark). */
export interface ChainHead {
  seq: number;
  hash: Buffer;
}

/** A row of (seq, hash): the head, a mark, a witnessed point. */
export const chainHeadOf = rowMapper<ChainHead>((r) => ({ seq: int(r, 'seq'), hash: bytes(r, 'hash') }));

/** The head this desk kept, or null before it verified any event. */
export function keptHead(db: ReadDb): ChainHead | null {
  return maybe(readStatement(db, 'SELECT seq, hash FROM team_chain WHERE one_row = 1').get(), chainHeadOf) ?? null;
}

/** Keeps the head and the marks passed on the way to it, in one transaction. */
export function keepHead(db: WriteDb, head: ChainHead, marks: readonly ChainHead[], now: number): void {
  writeTransaction(db, () => {
    statement(
      db,
      `INSERT INTO team_chain (one_row, seq, hash, updated_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (one_row) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, updated_at = excluded.updated_at`,
    ).run(head.seq, head.hash, now);
    const mark = statement(db, 'INSERT OR REPLACE INTO team_chain_marks (seq, hash) VALUES (?, ?)');
    for (const m of marks) mark.run(m.seq, m.hash);
  });
}

/** The marks kept up to `uptoSeq`, in seq order. */
export function keptMarks(db: ReadDb, uptoSeq: number): ChainHead[] {
  return readStatement(db, 'SELECT seq, hash FROM team_chain_marks WHERE seq <= ? ORDER BY seq')
    .all(uptoSeq)
    .map(chainHeadOf);
}
