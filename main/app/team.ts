// The composition of a team profile, one per workspace: the sign-in (team/unlocker.ts, behind the idle
// lock), the signed-in session it opens (team/session.ts: the operator's own pool, the pull and the
// outbox push), what they tell the screens (app events), and the seams that make the desk's charges
// (operations/charge.ts) and a person's decisions team-wide. The sync engine itself is main/team/sync/. Solo profiles have none of this.
import type pg from 'pg';
import { noticeOf } from './event-bus.js';
import { words, type Words } from '../words/words.shared.js';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import { lastSyncedAt } from '../store/sqlite/team/sync-state.js';
import { KeyringAppSecret, type AppSecret } from '../secrets/index.js';
import { AppError } from './errors.js';
import type { NewEvent } from '../collections/event-rules.js';
import type { Ledger } from '../collections/ledger.js';
import type { TeamChargeSeam } from '../collections/charge/types.js';
import { TeamError, TeamPermissionError, TeamUnavailableError, translatePgError } from '../team/errors.js';
import { roleWords, type TeamRole } from '../team/roles.shared.js';
import { recordTeamFirst, type TeamFirstRecord, type TeamFirstWhat } from '../team/record.js';
import type { TeamSession } from '../team/session.js';
import { rememberedPasswordName, TeamUnlocker } from '../team/unlocker.js';
import { offlineCheckName } from '../team/offline-check.js';
import { DEFAULT_TLS, transportOf, type TeamTls } from '../team/tls.js';
import type { AppEventBus } from './event-bus.js';
import { teamNotices } from './team-notices.js';
import { startSession, syncStatusNotices } from './team-session.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import type { TeamLinkState } from './status.js';
import { outboxCounts } from '../collections/outbox.js';
import { heapWhileCatchingUp } from './heap.js';
import { teamCharges } from '../operations/charge.js';

export interface TeamLink {
  readonly unlocker: TeamUnlocker;
  session(): TeamSession | null;
  /** The password kept in the keychain when the operator asked to be remembered, or null. */
  rememberedPassword(): Promise<string | null>;
  forgetPassword(): Promise<void>;
  state(): TeamLinkState;
  readonly charges: TeamChargeSeam;
  /**
   * Records a person's fact (a resolution, an import) in the team database BEFORE it is stored locally;
   * returns it with the key both copies share, and the keys it stored. Offline or not allowed: an AppError
   * saying so, nothing stored; a resolution another one already stands for: team/resolutions.ts
   * ResolutionTakenError, as the database said it.
   */
  recordFirst(evs: readonly NewEvent[], what: TeamFirstWhat): Promise<TeamFirstRecord>;
  close(): Promise<void>;
}

export type { TeamFirstRecord, TeamFirstWhat };

export interface TeamLinkOptions {
  db: Db;
  /** The process's ledger (composeCore's): the sync stores what it pulls through it. */
  ledger: Ledger;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
  databaseUrl: string;
  /** TLS to the team database (the profile's sslmode and CA); default: by host. */
  tls?: TeamTls;
  login: string;
  /** The sync's state changed (the workspace pushes a new status). */
  onChange: () => void;
  /** Default: the OS keychain. */
  remembered?: AppSecret;
  /** The check of the last accepted password, for signing in offline (team/offline-check.ts). Default: the OS keychain. */
  offlineCheck?: AppSecret;
  syncEveryMs?: number;
  /** How often the signed-in operator's row is read when no change was heard (team/standing.ts; tests). */
  standingEveryMs?: number;
  /** The keys this desk checks every signed event of the team record with (team/evidence.ts). */
  verificationKeys?: () => SignatureKeys;
  /** Settles once those keys are loaded (the workspace's first connection attempt). */
  verificationKeysReady?: () => Promise<unknown>;
}

/**
 * When the local copy last took rows from the team database (each stream's team_sync.updated_at), so the
 * status bar says how current the copy is before this session's first pull; null if it never did.
 */
function localCopySyncedAt(db: Db): number | null {
  try {
    return lastSyncedAt(db);
  } catch {
    return null; // the database is closing (a profile switch): the status is about to change anyway
  }
}

/**
 * Records `evs` in the team database first (see TeamLink.recordFirst); a refusal or an outage is an
 * AppError in the operator's words.
 */
async function recordFirstOn(
  s: TeamSession | null,
  login: string,
  evs: readonly NewEvent[],
  what: TeamFirstWhat,
): Promise<TeamFirstRecord> {
  if (!s) throw new AppError('unavailable', `Sign in as ${login} to the team database first.`);
  const wrong = s.wrongDatabase();
  if (wrong) throw new AppError('unavailable', wrong);
  try {
    return await recordTeamFirst(s.pool, evs);
  } catch (e) {
    const t = e instanceof TeamError ? e : translatePgError(e, what.action, login);
    if (t instanceof TeamPermissionError) {
      // The role the database holds now, which may not be the one this desk last read.
      const role = (await s.standing.refresh()) ?? s.role;
      throw new AppError(
        'forbidden',
        `${login} (${roleWords(role)}) may not ${what.action}: the team database refused it.`,
      );
    }
    if (t instanceof TeamUnavailableError)
      throw new AppError(
        'unavailable',
        `The team database cannot be reached, so no ${what.noun} can be recorded: each is recorded there first, so every desk sees it. The local copy stays readable; try again when the status bar says the team database is back.`,
      );
    throw t;
  }
}

/** The outbox's counts for the status bar; null when the database cannot be read (closing). */
function countOutbox(db: Db): { pending: number; refused: number } | null {
  try {
    return outboxCounts(db);
  } catch {
    return null;
  }
}

/** The link's state for the status bar (status.ts). */
function linkState(
  o: TeamLinkOptions,
  session: TeamSession | null,
  transport: { warning: string | null; warningWords: Words | null },
): TeamLinkState {
  const s = session?.sync.status();
  return {
    login: o.login,
    role: session?.role ?? null,
    signedIn: session !== null,
    online: s?.online ?? false,
    lastSyncAt: s?.lastPullAt ?? localCopySyncedAt(o.db),
    reached: (s?.lastPullAt ?? null) !== null,
    error: s?.error ?? null,
    catchingUp: s?.catchingUp ?? null,
    transportWarning: transport.warning,
    transportWarningWords: transport.warningWords,
    outbox: countOutbox(o.db),
    chain: s?.chain ?? null,
    signatures: s?.signatures ?? null,
    rollback: s?.rollback ?? null,
    notifications: s?.notifications ?? null,
  };
}

export function createTeamLink(o: TeamLinkOptions): TeamLink {
  const { logger, events } = o;
  const remembered = o.remembered ?? new KeyringAppSecret(rememberedPasswordName(o.databaseUrl, o.login));
  let session: TeamSession | null = null;
  let closed = false;
  const tls = o.tls ?? DEFAULT_TLS;
  // Chosen in Settings, and said at every start: in the log, and in the status bar for as long as it holds.
  const transport = transportOf(o.databaseUrl, tls);
  const { warning: transportWarning, host, mode } = transport;
  if (transportWarning) logger.warn({ host, sslmode: mode }, transportWarning);
  const notices = teamNotices(events, o.db);
  const statusNotices = syncStatusNotices(events);

  async function signedIn(pool: pg.Pool, role: TeamRole, how: { offline: boolean }): Promise<void> {
    if (closed) {
      await pool.end().catch(() => undefined);
      return;
    }
    // Signing in again after the idle lock: the running session (its pool and sync) carries on.
    if (session) {
      await pool.end().catch(() => undefined);
      session.standing.signedInAs(role);
      return;
    }
    session = startSession(o, pool, role, notices, {
      signOut: (why) => void signOut(why),
      statusNotices,
    });
    logger.info(
      { login: o.login, role, offline: how.offline },
      how.offline
        ? 'signed in offline (the password matched the last one the team database accepted here)'
        : 'signed in to the team database',
    );
    o.onChange();
  }

  /**
   * An admin disabled this operator, or the team database refused this login's password (changed) on a
   * session that was open: the session ends and the desk locks, so only a sign-in the database accepts
   * opens it. Charge events not yet recorded stay in the outbox for the next session.
   */
  async function signOut(why: 'disabled' | 'refused'): Promise<void> {
    const s = session;
    if (!s) return;
    session = null;
    logger.warn({ login: o.login, why }, 'the team database ended the sign-in of an open session: locking');
    events.emit(
      'notice',
      noticeOf(
        'error',
        words(why === 'disabled' ? 'app.notice.disabled' : 'app.notice.passwordChanged', { login: o.login }),
      ),
    );
    events.emit('team.signedOut', { login: o.login });
    o.onChange();
    await s.close();
  }

  const unlocker = new TeamUnlocker({
    databaseUrl: o.databaseUrl,
    tls,
    login: o.login,
    remembered,
    offlineCheck: o.offlineCheck ?? new KeyringAppSecret(offlineCheckName(o.databaseUrl, o.login)),
    onSignIn: signedIn,
    onIdleError: (err) => logger.warn({ err }, 'a team database connection failed'),
  });

  // The charges' team-first write, claim and refusal texts are the charge operation's.
  const charges = teamCharges({ login: o.login, session: () => session });

  return {
    unlocker,
    recordFirst: (evs, what) => recordFirstOn(session, o.login, evs, what),
    session: () => session,
    rememberedPassword: () => remembered.get(),
    forgetPassword: () => remembered.delete(),
    state: () => linkState(o, session, transport),
    charges,
    async close() {
      closed = true;
      const s = session;
      session = null;
      // What the outbox still holds stays there, durable, and goes at the next sign-in.
      await s?.close();
      heapWhileCatchingUp(0);
    },
  };
}
