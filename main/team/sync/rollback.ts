// A team record that went back in time is a rollback, not tampering (issue 29, DESIGN.md "rollback vs
// tampering"). An asynchronous failover promotes a standby that never received the primary's last
// commits; a restore from last night's backup does the same with a day. Events this desk pulled and
// verified are gone from the record, and the new primary numbers new events from its own sequence,
// which may reuse seqs this desk holds. The hash chain then no longer reaches the head this desk kept,
// exactly as after a superuser's rewrite; what tells the two apart:
//
// - A rollback: the record still holds what this desk verified up to some point P (its hash there is
//   the one this desk verified: the whole prefix is then the same, the chain links it), and after P it
//   holds other events or none: every event this desk verified after P is missing at its seq, or a
//   restoration of it (team.restore_events' mark, migration 15), and what the record holds after P links
//   from P's hash as a chain should.
// - Tampering: an event this desk verified after P is still at its seq with its key, rewritten (not a
//   restoration); or the record after P does not hold together as a chain. The tamper alarm is raised
//   for those exactly as before (chain-check.ts), and nothing is applied.
//
// P is found from the points of the chain this desk kept: its head, every event it witnessed within the
// journal's horizon (witness.ts: to the event), and the marks of every 1,000 seqs (chain.ts) before that.
//
// What the desk does then, in words on its status bar and in Settings, Team ("the team database lost
// events 42–82, probably a failover or a restore from backup; this desk holds them"):
// 1. It keeps showing what it verified (nothing of the new record is applied yet) and puts back what it
//    holds and the record lacks, through team.restore_events, exactly once by event key: its own events
//    (written by its login; its outbox keeps them until then, push.ts) at once, in their old order; the
//    service's signed events of others (their evidence proves them) after a short wait, so the desks
//    whose events they are go first and the record keeps the old order where it can.
// 2. What it holds but cannot prove or send again (another desk's unsigned word, a signed event whose
//    evidence it does not hold) is listed by reference and seq (team_lost_events), never dropped; an
//    entry goes when the event comes back through another witness.
// 3. It re-bases: every reference the record changed after P (and those it lost) is removed from the
//    local copy and applied again from the record, in seq order, through the one apply path, in one
//    SQLite transaction with the new chain head, marks, journal and seq: the copy then equals a replay of
//    the record, row for row. The head it had verified is kept as evidence (team_rollback). Events of
//    this desk still to send (its outbox) survive it and go as before. Then it follows the record again.
//
// A crash or an outage anywhere in this leaves the kept head where it was: the next pull finds the same
// rollback and goes on (putting back is idempotent by key; the re-base is one transaction).
//
// In parts: rollback-find.ts (where it went back, or a rewrite), rollback-candidates.ts (what this desk
// holds that the record lacks), rollback-restore.ts (putting it back), rollback-rebase.ts (the re-base);
// this file watches and decides.
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Db } from '../../store/sqlite/connection.js';
import { writeTransaction } from '../../store/sqlite/transaction.js';
import { keptHead } from '../../store/sqlite/team/chain-head.js';
import { dropLostEventsHeld, keepRollback, keptRollback, lostEvents } from '../../store/sqlite/team/rollback.js';
import type { TeamRollbackState } from '../chain-words.shared.js';
import { translatePgError } from '../errors.js';
import { type EventVerifier } from '../evidence.js';
import { queryableLogin } from '../pool.js';
import type { ChainCheck } from './chain-check.js';
import { WITNESS_DAYS } from './witness.js';
import type { Ledger } from '../../collections/ledger.js';
import type { OwnGuards } from '../own-guards.js';
import type { RollbackContext } from './rollback-context.js';
import { looker } from './rollback-find.js';
import { handle } from './rollback-restore.js';

export type { TeamRollbackState };

export interface RollbackWatchOptions {
  pool: pg.Pool;
  db: Db;
  /** What a re-base stores the record's events and this desk's unsent ones through. */
  ledger: Ledger;
  clock: Clock;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** The login this desk signed in as: its own events are the ones it may put back unsigned. */
  login: string | null;
  chain: ChainCheck;
  /** This desk's check of each signed event (team/evidence.ts), as the pull applies them. */
  verify: () => EventVerifier | undefined;
  onChange: (state: TeamRollbackState | null) => void;
  /** The desk re-based: `applied` events were applied again; screens read what they show again. */
  onRebased?: ((applied: number) => void) | undefined;
  /** How long the desk waits before putting back other writers' signed events (default 3 s). */
  othersAfterMs?: number | undefined;
  /** The guard fingerprints of this desk's own charges within the repeat window: they go back with their intents. */
  ownGuards?: OwnGuards | undefined;
  /** How far back (days) the desk looks for its own events the record may have lost (default 14). */
  horizonDays?: number | undefined;
  /** The record is looked at at most this often unless asked (default 5 s). */
  probeEveryMs?: number | undefined;
  stopped: () => boolean;
}

export interface RollbackWatch {
  state(): TeamRollbackState | null;
  /** Whether the record went back from what this desk verified (asked before a tamper alarm is raised). */
  wentBack(): Promise<boolean>;
  /**
   * Looks at the record (when due, or `force`); when it went back, puts back what this desk holds and
   * re-bases. Resolves with how many events a re-base applied (0 when nothing went back). Throws
   * ChainBrokenError when the record was rewritten rather than taken back.
   */
  settle(force: boolean): Promise<number>;
  /** A pull applied events: entries of the lost list that are back in the copy go. */
  applied(): void;
}

/** The rollback as the status says it: the kept row and the first 100 of the lost list; null when none. */
function view(db: Db): TeamRollbackState | null {
  const r = keptRollback(db);
  if (!r) return null;
  const lost = lostEvents(db, 100);
  return {
    lostFrom: r.lost_from,
    lostTo: r.lost_to,
    commonSeq: r.common_seq,
    foundAt: r.found_at,
    phase: r.phase,
    previousHead: { seq: r.old_head_seq, hash: r.old_head_hash.toString('hex') },
    restored: r.restored,
    present: r.present,
    rebasedSeq: r.rebased_seq,
    rebasedAt: r.rebased_at,
    unrestored: lost.rows.map((x) => ({
      eventKey: x.event_key,
      reference: x.merchant_reference,
      seq: x.seq,
      source: x.source,
      kind: x.kind,
      reason: x.reason,
    })),
    unrestoredCount: lost.count,
  };
}

export function startRollbackWatch(o: RollbackWatchOptions): RollbackWatch {
  const { pool, db } = o;
  const probeEveryMs = o.probeEveryMs ?? 5_000;
  let lastProbe = -Infinity;
  let lostListed = lostEvents(db, 0).count;
  let current: TeamRollbackState | null = view(db);
  const ctx: RollbackContext = {
    ...o,
    horizonMs: (o.horizonDays ?? WITNESS_DAYS) * 86_400_000,
    ask: <T>(doing: string, fn: () => Promise<T>): Promise<T> =>
      fn().catch((e: unknown) => {
        throw translatePgError(e, doing, queryableLogin(pool));
      }),
    changed() {
      current = view(db);
      lostListed = current?.unrestoredCount ?? 0;
      o.onChange(current);
    },
  };
  const look = looker(ctx);
  return {
    state: () => current,
    async wentBack() {
      lastProbe = -Infinity; // the pull after the alarm's question looks again, and handles it
      return (await look()) !== null;
    },
    async settle(force) {
      const restoring = current?.phase === 'restoring';
      const now = performance.now();
      if (!force && !restoring && now - lastProbe < probeEveryMs) return 0;
      lastProbe = now;
      const w = await look();
      if (w) return handle(ctx, w);
      // Found before (a restart while it was being put right), and the record holds this desk's head
      // again (put back in place by its administrator): nothing to re-base on.
      const kept = restoring ? keptRollback(db) : undefined;
      if (kept) {
        const at = o.clock.now();
        writeTransaction(db, () =>
          keepRollback(db, { ...kept, phase: 'rebased', rebased_at: at, rebased_seq: keptHead(db)?.seq ?? 0 }),
        );
        ctx.changed();
      }
      return 0;
    },
    applied() {
      if (!lostListed) return;
      const gone = writeTransaction(db, () => dropLostEventsHeld(db));
      if (gone) ctx.changed();
    },
  };
}
