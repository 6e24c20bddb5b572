// The signed-in operator of a team desktop: their own pool (the login is the operator, so PostgreSQL's
// grants decide what they may do), their role as the database holds it now (standing.ts: followed while
// signed in), and the sync engine on that pool: the pull that keeps the local copy up to date
// (sync/pull.ts) and the push that sends this desk's outbox (sync/push.ts).
// The sign-in that opens the pool is the unlocker's (unlocker.ts); who composes a session (main/app/)
// tells its screens through the callbacks.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import type { Ledger } from '../collections/ledger.js';
import type { OutboxEntry } from '../collections/outbox.js';
import type { TeamRole } from './operators.js';
import type { ChangedCollection } from './sync/apply.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import { startTeamSync, type TeamSync, type TeamSyncOptions, type TeamSyncStatus } from './sync/pull.js';
import { startOutboxPush, type OutboxPush } from './sync/push.js';
import { watchStanding, type OperatorStanding } from './standing.js';
import { createOwnGuards, type OwnGuards } from './own-guards.js';

export interface TeamSession {
  pool: pg.Pool;
  login: string;
  /** The role the team database holds, as last read (standing.ts): changes while signed in. */
  readonly role: TeamRole;
  /** Follows the operator's row: refresh() reads the role the database holds now (for a refusal's words). */
  standing: OperatorStanding;
  /**
   * The guard fingerprints of this login's charges of the last minutes, in memory only (own-guards.ts): the
   * charge keeps each (operations/charge.ts), the sync puts them back with their intents after a rollback.
   */
  ownGuards: OwnGuards;
  sync: TeamSync;
  push: OutboxPush;
  /**
   * Why nothing may be written now (the database is another team's than this desk's copy,
   * sync/workspace.ts), or null.
   */
  wrongDatabase(): string | null;
  /** Stops the push and the pull (what the outbox holds stays for the next session) and ends the pool. */
  close(): Promise<void>;
}

export interface TeamSessionOptions {
  pool: pg.Pool;
  login: string;
  role: TeamRole;
  db: Db;
  /** The process's ledger: the sync stores what it pulls through it. */
  ledger: Ledger;
  clock: Clock;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  syncEveryMs?: number | undefined;
  onApplied?: (changed: ChangedCollection[]) => void;
  onOrphans?: TeamSyncOptions['onOrphans'];
  onCopied?: TeamSyncOptions['onCopied'];
  onPolled?: TeamSyncOptions['onPolled'];
  onStatus?: (s: TeamSyncStatus) => void;
  /** Outbox entries the team database refused (they stay on the desk, marked). */
  onRefused?: (entries: readonly OutboxEntry[], reason: string) => void;
  /** An admin changed this operator's role while signed in (`by`: who, when the row says). */
  onRoleChanged?: (role: TeamRole, was: TeamRole, by: string | null) => void;
  /** An admin disabled this operator while signed in: the session must end. */
  onDisabled?: (by: string | null) => void;
  /** The team database announced a change to an operator (null: changes may have gone unheard). */
  onOperatorChanged?: (login: string | null) => void;
  /** How often the operator's row is read when no change was heard (default standing.ts STANDING_EVERY_MS). */
  standingEveryMs?: number | undefined;
  /** The keys this desk checks every signed event of the team record with (team/evidence.ts). */
  evidenceKeys?: (() => SignatureKeys) | undefined;
  /** Settles once those keys are loaded: the pull applies nothing before. */
  evidenceReady?: (() => Promise<unknown>) | undefined;
}

export function startTeamSession(o: TeamSessionOptions): TeamSession {
  const ownGuards = createOwnGuards(o.clock);
  const standing = watchStanding({
    pool: o.pool,
    login: o.login,
    role: o.role,
    ...(o.standingEveryMs !== undefined ? { everyMs: o.standingEveryMs } : {}),
    onRole: (role, was, by) => o.onRoleChanged?.(role, was, by),
    onDisabled: (by) => o.onDisabled?.(by),
    logger: o.logger,
  });
  const sync = startTeamSync({
    pool: o.pool,
    db: o.db,
    ledger: o.ledger,
    clock: o.clock,
    logger: o.logger,
    ...(o.syncEveryMs ? { pollEveryMs: o.syncEveryMs } : {}),
    ...(o.onApplied ? { onApplied: o.onApplied } : {}),
    ...(o.onOrphans ? { onOrphans: o.onOrphans } : {}),
    ...(o.onCopied ? { onCopied: o.onCopied } : {}),
    ...(o.onPolled ? { onPolled: o.onPolled } : {}),
    ...(o.evidenceKeys ? { evidenceKeys: o.evidenceKeys } : {}),
    ...(o.evidenceReady ? { evidenceReady: o.evidenceReady } : {}),
    ownGuards,
    onOperatorChanged: (login) => {
      standing.heard(login);
      o.onOperatorChanged?.(login);
    },
  });
  const wrongDatabase = (): string | null => {
    const st = sync.status();
    return st.wrongDatabase
      ? `Nothing is recorded: ${st.error ?? 'the team database is not the one this desk was synced from'}`
      : null;
  };
  // What this desk's charges stored for the team (its outbox) is sent once the first pull has checked that
  // the database is this desk's team's (sync/workspace.ts), including what a previous run left there (a
  // crash, a close while the database was away).
  let checked = false;
  // The status changes with every pull of a busy team; the push is kicked when it may send again (checked,
  // back online, the record put right), not on each of them: a kick reads the outbox.
  let couldSend = false;
  const push = startOutboxPush({
    pool: o.pool,
    db: o.db,
    clock: o.clock,
    logger: o.logger,
    holdBack: () => {
      const why =
        wrongDatabase() ??
        (checked ? null : 'the team database is not checked yet') ??
        // The record went back in time: this desk's own events go back first, in their old order (an
        // answer sent before its intent is back would land where no collection is yet), then the outbox.
        // Nor may anything go before a pull has looked (at the start, after the database was away): the
        // record may have gone back unseen yet (a failover), and the answer would go first all the same.
        (sync.status().rollback?.phase === 'restoring'
          ? 'the team record is being put right after it went back'
          : null) ??
        (sync.recordLooked() ? null : 'the team record is looked at first (the database was away)');
      if (why) couldSend = false; // the status that lets it send again kicks it
      return why;
    },
    onOutage: () => sync.lookFirst(),
    ...(o.onRefused ? { onRefused: o.onRefused } : {}),
  });
  sync.onStatus((s) => {
    if (s.online && !s.wrongDatabase) checked = true;
    const canSend = checked && s.online && !s.wrongDatabase && s.rollback?.phase !== 'restoring' && sync.recordLooked();
    if (canSend && !couldSend) push.kick(); // checked, or back: what waited goes now, not at the next retry
    couldSend = canSend;
    o.onStatus?.(s);
  });
  return {
    pool: o.pool,
    login: o.login,
    get role() {
      return standing.role;
    },
    standing,
    ownGuards,
    sync,
    push,
    wrongDatabase,
    async close() {
      standing.close();
      await push.close().catch(() => undefined);
      await sync.close().catch(() => undefined);
      ownGuards.clear();
      await o.pool.end().catch(() => undefined);
    },
  };
}
