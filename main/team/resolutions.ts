// One resolution per exception, decided by the team database (team migration 13): a resolution of a
// reference whose latest event is already a resolution is refused, naming that resolution's seq. This
// module turns the refusal into who resolved it, when, and their note, read from team.events with the
// desk's own grants.
import { selectEventBySeq } from '../store/pg/events.js';
import { TeamError } from './errors.js';
import { toSafeInteger, type Queryable } from './pool.js';

/** The resolution that stands, as the team record has it. */
export interface StandingResolution {
  merchantReference: string;
  /** The login PostgreSQL recorded. */
  resolvedBy: string;
  /**
   * When it was resolved (ms since the epoch): the event's own time, which every desk shows for it
   * ("Resolved by kofi at …"); the database's recorded_at is at most the round trip later.
   */
  resolvedAt: number;
  note: string | null;
  seq: number;
}

/**
 * The team database refused a resolution: `standing` was recorded first and nothing happened since. Null
 * when the refusal is sure but the standing one could not be read (the database out of reach just then).
 */
export class ResolutionTakenError extends TeamError {
  override name = 'ResolutionTakenError';
  constructor(
    readonly standing: StandingResolution | null,
    options?: { cause?: unknown },
  ) {
    super(
      standing
        ? `${standing.merchantReference} was already resolved by ${standing.resolvedBy} at ${new Date(standing.resolvedAt).toISOString()}` +
            (standing.note ? `: ${standing.note}` : '')
        : 'already resolved at another desk (who and when could not be read)',
      '55000',
      options,
      'conflict',
      'merchant_reference',
    );
  }
}

/** The seq the database named in its refusal of a resolution (migration 13's DETAIL), or null for any other error. */
function refusedFor(e: unknown): number | null {
  const pgError = (e instanceof TeamError ? e.cause : e) as { code?: string; detail?: string } | undefined;
  if (pgError?.code !== '55000' || !pgError.detail) return null;
  try {
    const d = JSON.parse(pgError.detail) as { resolved_seq?: unknown };
    return typeof d.resolved_seq === 'number' || typeof d.resolved_seq === 'string'
      ? toSafeInteger(String(d.resolved_seq), 'resolved_seq')
      : null;
  } catch {
    return null;
  }
}

/**
 * `e` as a ResolutionTakenError when it is the database's refusal of a resolution (reading the standing
 * one from team.events), else `e` itself. A failure to read it (a line cut just then) is still that
 * refusal, without who and when: the database's own words (its seq, "append events") are no one's to read.
 */
export async function explainResolutionRefusal(db: Queryable, e: unknown): Promise<unknown> {
  const seq = refusedFor(e);
  if (seq === null) return e;
  try {
    const row = await selectEventBySeq(db, seq);
    if (!row) return new ResolutionTakenError(null, { cause: e });
    return new ResolutionTakenError(
      {
        merchantReference: row.merchant_reference,
        resolvedBy: row.actor,
        resolvedAt: row.occurred_at.getTime(),
        note: row.note,
        seq,
      },
      { cause: e },
    );
  } catch {
    return new ResolutionTakenError(null, { cause: e });
  }
}
