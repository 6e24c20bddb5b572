// serve's callback store: the receiver's groups go to the team's PostgreSQL as 'callback' events, the
// whole group in ONE statement (one commit, durable before any delivery is answered).
//
// Each event is the one a desktop's own receiver stores (callbacks/callback-event.ts), field for field,
// under the same dedupe key, so a desktop applying the pulled event gets the same row; a callback
// delivered twice (or by a desktop's own receiver too) is stored once.
//
// serve's login reads no event key (keys hold the merchant reference; team migration 8), so it cannot
// learn which keys an insert skipped from the insert itself: the group's one statement asks
// team.callback_keys (team migration 18) under which key each callback is stored, if at all, and inserts
// those (store/pg/event-inserts.ts insertJudgedEvents: one round trip and one commit a group). A body
// the record holds is a repeat while the reference's latest callback status is its own, and said again,
// under `<key>:<n>`, after another (docs/team.md, "The service said it again").
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
import { appendJudgedEvents, type NewTeamEvent } from '../team/events.js';
import { toTeamEvent } from '../team/record.js';
import { TeamError, TeamUnavailableError } from '../team/errors.js';
import type { ServeJournal } from './journal.js';
import { eventsStored } from '../store/pg/event-inserts.js';
import { saidAgainKey } from '../callbacks/callback-key.js';

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

/** What the record made of each event: stored now (its key, maybe said again, and seq), or not (undefined). */
type Stored = Map<string, { key: string; seq: number }>;

/** Stores the events the record judges new or said again; by each event's own key, what it was stored as. */
async function storeNew(pool: pg.Pool, events: NewTeamEvent[]): Promise<Stored> {
  if (events.length === 0) return new Map();
  for (let attempt = 1; ; attempt++) {
    try {
      const judged = await appendJudgedEvents(pool, events);
      const stored: Stored = new Map();
      events.forEach((e, i) => {
        const { key, seq } = judged[i]!;
        if (key !== null && seq !== null) stored.set(e.eventKey, { key, seq });
      });
      return stored;
    } catch (e) {
      // unique_violation: stored meanwhile by another writer, and nothing of this try was; ask again.
      if (!(e instanceof TeamError && e.code === '23505') || attempt >= RACE_TRIES) throw e;
    }
  }
}

/** How many times a body may have been said for repeatedKeys to find its last (2 ... this, after the first). */
const SAID_AT_MOST = 16;

/**
 * For each repeat (a body the record holds, said again while its status is the latest), the key the record
 * holds its last saying under: `<key>`, or `<key>:<n>` for the highest n stored (said-again numbers are the
 * first free from 2, so they run without gaps). The journal keeps the repeat under that key: when serve was
 * stopped between a said-again commit and its journal, the service's retry is a repeat, and only then is that
 * event acknowledged; a rollback that lost it must find it missing, not its first saying present. Asked of
 * team.events_stored (serve reads no event key), one question for the group's repeats; when the record
 * cannot be asked now, the body's own key, as before said again existed.
 */
async function repeatedKeys(pool: pg.Pool, keys: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (keys.length === 0) return out;
  const asked = keys.flatMap((k) => Array.from({ length: SAID_AT_MOST - 1 }, (_, i) => saidAgainKey(k, i + 2)));
  let stored: boolean[];
  try {
    stored = await eventsStored(pool, asked);
  } catch {
    return out;
  }
  keys.forEach((k, j) => {
    let last = k;
    for (let i = 0; i < SAID_AT_MOST - 1; i++)
      if (stored[j * (SAID_AT_MOST - 1) + i]) last = asked[j * (SAID_AT_MOST - 1) + i]!;
    out.set(k, last);
  });
  return out;
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
      let stored: Stored;
      try {
        stored = await storeNew(pool, events);
      } finally {
        clock.end();
      }
      // Committed (durable) and the write turn passed on: the next group may go to PostgreSQL now,
      // while this one is journalled and answered.
      written?.();
      const t2 = performance.now();
      // Journalled under the key the record holds it by (said again: `<key>:<n>`), so a rollback puts back that one;
      // a repeat under the key of the saying it repeats.
      const repeated = journal
        ? await repeatedKeys(
            pool,
            events.filter((e) => !stored.has(e.eventKey)).map((e) => e.eventKey),
          )
        : new Map<string, string>();
      await journal?.keep(
        events.map((event) => {
          const s = stored.get(event.eventKey);
          if (s) return { event: { ...event, eventKey: s.key }, seq: s.seq };
          return { event: { ...event, eventKey: repeated.get(event.eventKey) ?? event.eventKey }, seq: null };
        }),
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
        const s = stored.get(cb.dedupeKey);
        // Stored earlier, a repeat (or twice in this group): the earlier row's seq is not asked for (no need).
        if (s === undefined) return duplicateOf(cb, 0, false);
        stored.delete(cb.dedupeKey);
        const seq = s.seq;
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
