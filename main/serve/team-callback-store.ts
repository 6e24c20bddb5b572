// serve's callback store: the receiver's groups go to the team's PostgreSQL as 'callback' events, the
// whole group in ONE statement (one commit, durable before any delivery is answered).
//
// Each event is the one a desktop's own receiver stores (callbacks/callback-event.ts), field for field,
// under the same dedupe key, so a desktop applying the pulled event gets the same row; a callback
// delivered twice (or by a desktop's own receiver too) is stored once.
//
// serve's login reads no event key (keys hold the merchant reference; team migration 8), so it cannot
// learn which keys an insert skipped from the insert itself: the group's one statement asks
// team.events_stored yes or no for its keys and inserts only the new ones (store/pg/events.ts
// insertUnstoredEvents: one round trip and one commit a group).
//
// Verification runs before, in memory, with the RSA checks on worker threads (callbacks/verify-pool.ts).
// After the commit, the group's journal entries are written and its deliveries answered while the next
// group is already at PostgreSQL: the group gives its commit slot back once its statement returns
// (CallbackStore's `written`), so a slow journal does not hold the commits behind it (issue 31).
import type pg from 'pg';
import type { CallbackStore } from '../callbacks/callback-store.js';
import { teamCallbackCopy, type VerifiedCallback } from '../callbacks/callback-event.js';
import { duplicateOf, verifyCallback, type IngestOutcome, type Verification } from '../callbacks/ingest.js';
import type { CallbackVerifier } from '../callbacks/verify-pool.js';
import { appendUnstoredEvents, type NewTeamEvent } from '../team/events.js';
import { toTeamEvent } from '../team/record.js';
import { TeamError, TeamUnavailableError } from '../team/errors.js';
import type { ServeJournal } from './journal.js';

/** The event a verified callback becomes in the team's log (callbacks/callback-event.ts teamCallbackCopy). */
export function teamCallbackEvent(cb: VerifiedCallback, now: number): NewTeamEvent {
  return toTeamEvent(teamCallbackCopy(cb, 'callback', now));
}

// pg's own errors for a connection that dropped or never came carry no SQLSTATE.
const CONNECTION_LOST = /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED/i;

/** The database cannot be reached now (as opposed to refusing what was sent). */
function isTeamUnavailable(err: unknown): boolean {
  if (err instanceof TeamUnavailableError) return true;
  if (err instanceof TeamError && err.code === undefined) return CONNECTION_LOST.test(err.message);
  return err instanceof Error && CONNECTION_LOST.test(err.message);
}

/** Tries of a group when another writer stores one of its keys between the question and the insert. */
const RACE_TRIES = 3;

/** Stores the events whose keys are not stored yet; the seq of each stored now. */
async function storeNew(pool: pg.Pool, events: NewTeamEvent[]): Promise<Map<string, number>> {
  if (events.length === 0) return new Map();
  for (let attempt = 1; ; attempt++) {
    try {
      const seqs = await appendUnstoredEvents(pool, events);
      const seqOf = new Map<string, number>();
      events.forEach((e, i) => {
        const seq = seqs[i];
        if (seq !== null && seq !== undefined) seqOf.set(e.eventKey, seq);
      });
      return seqOf;
    } catch (e) {
      // unique_violation: stored meanwhile by another writer, and nothing of this try was; ask again.
      if (!(e instanceof TeamError && e.code === '23505') || attempt >= RACE_TRIES) throw e;
    }
  }
}

/**
 * Where a group's time goes, summed over the groups (ms), and how the statements overlapped: the
 * wall time with at least one group's statement at PostgreSQL, and with two or more (one holds the
 * events' write turn, the others wait for it). Read by the serve bench.
 */
export interface TeamStoreStats {
  groups: number;
  rows: number;
  verifyMs: number;
  /** The group's statement, from sent to answered: waiting for the events' write turn included. */
  statementMs: number;
  journalMs: number;
  statementBusyMs: number;
  statementOverlapMs: number;
}

/** Counts the statements outstanding over time (TeamStoreStats' busy and overlap). */
function outstandingClock(stats: TeamStoreStats) {
  let outstanding = 0;
  let since = 0;
  const move = (by: number) => {
    const now = performance.now();
    if (outstanding >= 1) stats.statementBusyMs += now - since;
    if (outstanding >= 2) stats.statementOverlapMs += now - since;
    outstanding += by;
    since = now;
  };
  return { start: () => move(1), end: () => move(-1) };
}

export interface TeamCallbackStore extends CallbackStore {
  stats(): TeamStoreStats;
}

export interface TeamCallbackStoreOptions {
  /**
   * serve's journal of acknowledged callbacks (journal.ts): every verified callback of a group is kept
   * there once its commit is in the record, before any delivery of the group is answered.
   */
  journal?: ServeJournal;
  /** Where the group is verified (verify-pool.ts); default: all on this thread. */
  verifier?: CallbackVerifier;
}

export function teamCallbackStore(pool: pg.Pool, o: TeamCallbackStoreOptions = {}): TeamCallbackStore {
  const { journal, verifier } = o;
  const stats: TeamStoreStats = {
    groups: 0,
    rows: 0,
    verifyMs: 0,
    statementMs: 0,
    journalMs: 0,
    statementBusyMs: 0,
    statementOverlapMs: 0,
  };
  const clock = outstandingClock(stats);
  return {
    stats: () => ({ ...stats }),
    async commitGroup(group, keys, written): Promise<IngestOutcome[]> {
      const t0 = performance.now();
      // Verified first, in memory: a delivery that does not verify never reaches PostgreSQL.
      const verified: Verification[] = verifier
        ? await verifier.verify(
            group.map((d) => d.input),
            keys,
          )
        : group.map((d) => verifyCallback(d.input, keys));
      const checked = group.map((d, i) => ({ d, v: verified[i]! }));
      // A key repeated within the group is stored once: its first delivery's event.
      const byKey = new Map<string, NewTeamEvent>();
      for (const { d, v } of checked)
        if (v.result === 'verified' && !byKey.has(v.callback.dedupeKey))
          byKey.set(v.callback.dedupeKey, teamCallbackEvent(v.callback, d.now));
      const events = [...byKey.values()];
      const t1 = performance.now();
      clock.start();
      let seqOf: Map<string, number>;
      try {
        seqOf = await storeNew(pool, events);
      } finally {
        clock.end();
      }
      // Committed (durable) and the write turn passed on: the next group may go to PostgreSQL now,
      // while this one is journalled and answered.
      written?.();
      const t2 = performance.now();
      await journal?.keep(
        events.map((event) => ({ event, seq: seqOf.get(event.eventKey) ?? null })),
        Date.now(),
      );
      stats.groups += 1;
      stats.rows += byKey.size;
      stats.verifyMs += t1 - t0;
      stats.statementMs += t2 - t1;
      stats.journalMs += performance.now() - t2;
      return checked.map(({ v }): IngestOutcome => {
        if (v.result !== 'verified') return v;
        const cb = v.callback;
        const seq = seqOf.get(cb.dedupeKey);
        // Stored earlier (or twice in this group): the earlier row's seq is not asked for (no need).
        if (seq === undefined) return duplicateOf(cb, 0, false);
        seqOf.delete(cb.dedupeKey);
        return {
          result: 'imported',
          reference: cb.reference,
          status: cb.status,
          // Whether an intent exists is for each desktop to find when it applies the event.
          orphan: false,
          eventId: seq,
          kind: 'outcome',
          ...(cb.warning ? { warning: cb.warning } : {}),
        };
      });
    },
    isUnavailable: isTeamUnavailable,
    // Events commit in seq order, one write turn at a time (team migrations 1 and 8): one group's statement
    // runs while the next, already verified and sent, waits for the turn; more would only split the
    // deliveries into smaller commits. A group's slot is free once its statement returns (`written`):
    // its journal and answers do not hold the next group.
    maxCommitsInFlight: 2,
  };
}
