// A desk's watch over the team events' hash chain (team/chain.ts, team migration 10).
//
// - As it pulls: every batch must continue the chain from the head this desk kept (the last event it
//   verified) before it is applied. A batch that does not is NOT applied: the desk keeps showing what
//   it verified, raises the alarm and tries again at each pull. Why not apply and alarm: once stored,
//   a forged row (a callback marked COMPLETED, another actor) would be indistinguishable in the local
//   copy from the verified ones, reconciled and exported as fact; a desk that stops at the last seq it
//   can vouch for shows exactly what it can vouch for, and the alarm says from which seq it stopped.
// - It keeps the head (seq, hash) in SQLite (team_chain, migration 17): in each applied batch's own
//   transaction (keep, from apply.ts's alsoWrite), so the head and the applied seq move together, and
//   after a new desk's start (whose copy checked the chain as it went). A head behind the applied seq (a
//   desk from before that) first has the events in between checked, read again from PostgreSQL.
// - It re-checks what it holds: at sign-in and every few minutes, it reads team.events again from the
//   first event up to its head in pages, recomputes every hash, and compares the head's with the one it
//   kept. A row rewritten, removed or reordered, even by the superuser who recomputed every later hash,
//   is found by that one pass: the rewritten row's hash or link, or else the kept head's hash, differs.
// - It keeps the alarm too (team_chain_alarm, migration 18): a restarted desk shows it at once, before
//   its first check and without the database, until a check of the same kind finds the record matching.
import type pg from 'pg';
import type { Db } from '../../store/sqlite/connection.js';
import { keepHead, keptHead } from '../../store/sqlite/team/chain-head.js';
import { keepAlarm, keptAlarms, type ChainAlarmFinder } from '../../store/sqlite/team/chain-alarm.js';
import { lastSeq } from '../../store/sqlite/team/sync-state.js';
import { ChainBrokenError, ChainMovedError, checkChain, START, type ChainedEvent, type ChainHead } from '../chain.js';
import { walkAgainstKept, walkChain } from './chain-walk.js';

/** What the status bar and Settings, Team say about the record. */
export interface ChainState {
  /** The last seq whose chain this desk verified (its kept head), 0 before any. */
  verifiedSeq: number;
  /** When the last full re-check passed (ms since the epoch), or null. */
  recheckedAt: number | null;
  /** The first seq that does not match, and why; null while everything checked matches. */
  broken: { seq: number; reason: string } | null;
}

type Broken = NonNullable<ChainState['broken']>;
type FoundBy = ChainAlarmFinder;

export interface ChainCheckOptions {
  pool: pg.Pool;
  db: Db;
  now: () => number;
  /** Told whenever the state changes. */
  onChange: (s: ChainState) => void;
  /**
   * Events per page of a re-check (default 5,000), and how long it rests between pages, as a multiple of
   * the time the page took (default 1: the background re-check takes at most about half of what the
   * desk and the database could give it).
   */
  page?: number;
  pace?: number;
  stopped?: () => boolean;
  /**
   * Asked before an alarm is raised for a record that no longer holds what this desk verified
   * (ChainMovedError): resolves true when the record went back in time (team/sync/rollback.ts says so in
   * its own words, and puts it right), so no tamper alarm is raised for it.
   */
  explain?: () => Promise<boolean>;
}

/** A pulled batch that continues the chain: the head it reaches and the marks on the way. */
export interface CheckedBatch {
  head: ChainHead;
  marks: ChainHead[];
  /** Written already, in the batch's transaction (keep). */
  kept?: boolean;
}

export interface ChainCheck {
  state(): ChainState;
  /**
   * Checks a pulled batch (the events right after `appliedSeq`, the seq this desk applied up to) and
   * returns the head it reaches. Throws ChainBrokenError, and raises the alarm, when it does not match.
   */
  checkPulled(events: readonly ChainedEvent[], appliedSeq: number): Promise<CheckedBatch>;
  /** Writes the head (and marks) the batch reaches, inside the batch's own write transaction. */
  keep(checked: CheckedBatch): void;
  /** The batch checked by checkPulled is applied (committed): its head is the verified one (kept, if not yet). */
  applied(checked: CheckedBatch): void;
  /** A new desk's start checked the chain up to `head` as it copied: kept, with its marks. */
  started(head: ChainHead, marks: readonly ChainHead[]): void;
  /** Runs a new desk's start (which checks the chain as it copies): a break it finds raises the alarm. */
  starting<T>(start: Promise<T>): Promise<T>;
  /** Re-reads the record up to the kept head and recomputes it; resolves with the state after. */
  recheck(): Promise<ChainState>;
  /**
   * The desk re-based on a record that went back in time (team/sync/rollback.ts kept the new head and
   * marks in its own transaction): the new head is the verified one, and no alarm stands.
   */
  rebased(head: ChainHead): void;
}

/** The alarm the desk shows: the earlier of a pull's and a re-check's, or null. */
function firstAlarm(alarms: Record<FoundBy, Broken | null>): Broken | null {
  const raised = [alarms.pull, alarms.recheck].filter((b): b is Broken => b !== null);
  return raised.sort((a, b) => a.seq - b.seq)[0] ?? null;
}

export function createChainCheck(o: ChainCheckOptions): ChainCheck {
  const { pool, db } = o;
  let head: ChainHead | null = keptHead(db);
  // Found by a pull (the new events do not continue the verified chain) and by a re-check (what this
  // desk holds no longer matches), apart: a pull that matches again does not clear a re-check's alarm.
  // Both as an earlier run left them (kept in SQLite with each change).
  const alarms = keptAlarms(db);
  let recheckedAt: number | null = null;
  const raise = (by: FoundBy, b: Broken | null): void => {
    const was = alarms[by];
    if (was === b || (was && b && was.seq === b.seq && was.reason === b.reason)) return;
    keepAlarm(db, by, b, o.now());
    alarms[by] = b;
  };

  const state = (): ChainState => ({ verifiedSeq: head?.seq ?? 0, recheckedAt, broken: firstAlarm(alarms) });
  const changed = () => o.onChange(state());

  function keep(h: ChainHead, marks: readonly ChainHead[]): void {
    keepHead(db, h, marks, o.now());
    head = h;
  }

  async function checked<T>(which: 'pull' | 'recheck', fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ChainMovedError && o.explain && (await o.explain().catch(() => false))) throw e;
      if (e instanceof ChainBrokenError) {
        raise(which, { seq: e.seq, reason: e.reason });
        changed();
      }
      throw e;
    }
  }

  return {
    state,
    async checkPulled(events, appliedSeq) {
      return checked('pull', async () => {
        // Behind what is applied (a desk from before the chain, or a crash before the head was kept):
        // the events in between are checked first, read again from the record.
        let from = head ?? START;
        if (from.seq < appliedSeq) {
          const passed: ChainHead[] = [];
          from = await walkChain(pool, from, appliedSeq, { page: o.page ?? 5_000, onMark: (m) => passed.push(m) });
          keep(from, passed);
        }
        const marks: ChainHead[] = [];
        const reached = checkChain(from, events, (m) => marks.push(m));
        if (alarms.pull) {
          raise('pull', null);
          changed();
        }
        return { head: reached, marks };
      });
    },
    keep(c) {
      keepHead(db, c.head, c.marks, o.now());
      c.kept = true;
    },
    applied(c) {
      if (c.kept) head = c.head;
      else keep(c.head, c.marks);
      changed();
    },
    started(h, marks) {
      keep(h, marks);
      raise('pull', null);
      changed();
    },
    starting(start) {
      return checked('pull', () => start);
    },
    rebased(h) {
      head = h;
      recheckedAt = null;
      raise('pull', null);
      raise('recheck', null);
      changed();
    },
    async recheck() {
      const kept = head ?? keptHead(db);
      const upto = kept?.seq ?? lastSeq(db, 'events');
      await checked('recheck', async () => {
        const walked = await walkAgainstKept(pool, db, kept, upto, o);
        if (!walked) return;
        if (!kept && upto > 0) keep(walked.head, walked.marks);
        raise('recheck', null);
        recheckedAt = o.now();
        changed();
      }).catch((e: unknown) => {
        if (!(e instanceof ChainBrokenError)) throw e;
      });
      return state();
    },
  };
}
