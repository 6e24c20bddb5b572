// serve's poll results while the team database is silent (poll-to-team.ts says why): a write that finds
// the database silent is kept, in order, behind any kept before it, and the kept ones are written as soon
// as the database can be reached again (team/reconnect.ts probes it every second).
import type pg from 'pg';
import type { Logger } from 'pino';
import { translatePgError } from '../team/errors.js';
import { poolLogin } from '../team/pool.js';
import { isSilence, reachabilityWatch } from '../team/reconnect.js';

/** Writes kept while the database is silent, at most (a day of balance polls at the default minute). */
const MOST_KEPT = 1_440;

export interface KeptWrites {
  /**
   * Runs `statement` (true: written; false: another instance holds the poller lease); while the database
   * is silent, keeps it to write when the database is back.
   */
  write(doing: string, statement: () => Promise<boolean>): Promise<'written' | 'kept' | 'not_holder'>;
  /** Stops waiting for the database to write what was kept. */
  close(): void;
}

export function keptWrites(pool: pg.Pool, logger?: Logger): KeptWrites {
  /** Writes the database could not take while it was silent, oldest first. */
  const kept: { doing: string; statement: () => Promise<boolean> }[] = [];
  const back = reachabilityWatch(pool.options.connectionString);
  let closed = false;

  /** Writes what was kept, in order, once the database can be reached; waits again while it is silent. */
  async function writeKept(): Promise<void> {
    while (kept.length && !closed) {
      const next = kept[0]!;
      try {
        if (!(await next.statement()))
          logger?.info(
            { doing: next.doing },
            'a poll result kept during the outage is not written: another serve instance polls now',
          );
      } catch (e) {
        const err = translatePgError(e, next.doing, poolLogin(pool));
        if (isSilence(err)) return back.whenReachable(() => void writeKept());
        // An answer (a refusal) would be the same again: said, and not kept.
        logger?.error({ err: err.message }, `a poll result kept during the outage was refused: ${next.doing}`);
      }
      kept.shift();
    }
    if (!closed) logger?.info({}, 'poll results kept during the outage are written to the team database');
  }

  /** Runs `statement`; while the database is silent, keeps it to write when the database is back. */
  const write: KeptWrites['write'] = async (doing, statement) => {
    if (kept.length === 0) {
      try {
        return (await statement()) ? 'written' : 'not_holder';
      } catch (e) {
        const err = translatePgError(e, doing, poolLogin(pool));
        if (!isSilence(err)) throw err;
        logger?.warn(
          { err: err.message },
          'the team database cannot be reached: poll results are kept until it is back',
        );
        back.whenReachable(() => void writeKept());
      }
    }
    // Behind what is kept already, so the observations reach the record in the order they were made.
    if (kept.length >= MOST_KEPT)
      logger?.warn({ doing: kept.shift()!.doing }, 'too many poll results kept: the oldest is dropped');
    kept.push({ doing, statement });
    return 'kept';
  };
  return {
    write,
    close() {
      closed = true;
      back.stop();
    },
  };
}
