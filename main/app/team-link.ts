// A team profile's link to the team database, one per workspace: the sign-in (TeamUnlocker, behind the
// idle lock), the signed-in session (the operator's own pool and the sync), and the seam that makes
// its charges team-wide. Solo profiles have none of this.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import { KeyringAppSecret, type AppSecret } from '../secrets/index.js';
import { PaymentError } from '../collections/errors.js';
import { AppError } from './errors.js';
import type { NewEvent } from '../collections/events.js';
import type { TeamChargeSeam } from '../collections/charge/types.js';
import {
  DuplicateReferenceError,
  TeamError,
  TeamPermissionError,
  TeamUnavailableError,
  translatePgError,
} from '../team/errors.js';
import type { TeamRole } from '../team/operators.js';
import { recordEvents, recordIntent, withTeamKey } from '../team/record.js';
import type { TeamSession } from '../team/session.js';
import { startTeamSync, type TeamSyncStatus } from '../team/sync.js';
import { rememberedPasswordName, TeamUnlocker } from '../team/unlocker.js';
import { offlineCheckName } from '../team/offline-check.js';
import type { AppEventBus } from './events.js';
import type { SignatureKeys } from '../service/verify-callback.js';
import type { TeamLinkState } from './status.js';

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
   * returns it with the key both copies share. Offline or not allowed: an AppError saying so, nothing stored.
   */
  recordFirst(evs: readonly NewEvent[], what: TeamFirstWhat): Promise<NewEvent[]>;
  close(): Promise<void>;
}

/** What is recorded team-first, in words for the refusal ("may not resolve exceptions"). */
export interface TeamFirstWhat {
  /** e.g. "resolve exceptions" */
  action: string;
  /** e.g. "resolution" */
  noun: string;
}

export interface TeamLinkOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
  databaseUrl: string;
  login: string;
  /** The sync's state changed (the workspace pushes a new status). */
  onChange: () => void;
  /** Default: the OS keychain. */
  remembered?: AppSecret;
  /** The check of the last accepted password, for signing in offline (team/offline-check.ts). Default: the OS keychain. */
  offlineCheck?: AppSecret;
  syncEveryMs?: number;
  /** The keys this desk checks every signed event of the team record with (team/evidence.ts). */
  verificationKeys?: () => SignatureKeys;
  /** Settles once those keys are loaded (the workspace's first connection attempt). */
  verificationKeysReady?: () => Promise<unknown>;
}

const OFFLINE_CHARGE =
  'The team database cannot be reached, so no new charge can be taken: every charge is recorded there first, ' +
  'so that two desks never charge the same payment. The local copy stays readable; try again when the status bar says the team database is back.';

const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;

export function createTeamLink(o: TeamLinkOptions): TeamLink {
  const { logger, events } = o;
  const remembered = o.remembered ?? new KeyringAppSecret(rememberedPasswordName(o.databaseUrl, o.login));
  let session: TeamSession | null = null;
  let closed = false;
  let wasOffline = false;

  async function signedIn(pool: pg.Pool, role: TeamRole, how: { offline: boolean }): Promise<void> {
    if (closed) {
      await pool.end().catch(() => undefined);
      return;
    }
    // Signing in again after the idle lock: the running session (its pool and sync) carries on.
    if (session) {
      await pool.end().catch(() => undefined);
      session.role = role;
      return;
    }
    const sync = startTeamSync({
      pool,
      db: o.db,
      clock: o.clock,
      logger,
      ...(o.syncEveryMs ? { pollEveryMs: o.syncEveryMs } : {}),
      ...(o.verificationKeys ? { evidenceKeys: o.verificationKeys } : {}),
      ...(o.verificationKeysReady ? { evidenceReady: o.verificationKeysReady } : {}),
      onApplied: (changed) => {
        for (const c of changed) events.emit('collection.changed', c);
      },
      // What the sync writes behind the screens is told the way the local poller and receiver tell it.
      onCopied: () => events.emit('callbacks.ingested', { result: 'team-copy', reference: null }),
      onPolled: (what, changed) =>
        events.emit(what === 'balances' ? 'balances.polled' : 'options.polled', { outcome: 'ok', changed }),
    });
    sync.onStatus((s: TeamSyncStatus) => {
      if (s.signInRefused) {
        void signOut();
        return;
      }
      if (!s.online && s.error) wasOffline = true;
      else if (s.online && wasOffline) {
        wasOffline = false;
        events.emit('notice', {
          level: 'info',
          message: 'The team database is reachable again: the local copy is up to date.',
        });
      }
      if (s.online) flush();
      o.onChange();
    });
    session = { pool, login: o.login, role, sync };
    logger.info(
      { login: o.login, role, offline: how.offline },
      how.offline
        ? 'signed in offline (the password matched the last one the team database accepted here)'
        : 'signed in to the team database',
    );
    o.onChange();
    flush();
  }

  /**
   * The team database refused this login's password (changed, or the operator disabled) on a session
   * that was open: the session ends and the desk locks, so only a sign-in the database accepts opens it.
   * Charge events not yet recorded stay queued for the next session.
   */
  async function signOut(): Promise<void> {
    const s = session;
    if (!s) return;
    session = null;
    logger.warn({ login: o.login }, 'the team database refused the sign-in of an open session: locking');
    events.emit('notice', {
      level: 'error',
      message: `The team database no longer accepts ${o.login}'s password (it was changed, or the operator was disabled): sign in again.`,
    });
    events.emit('team.signedOut', { login: o.login });
    o.onChange();
    await s.sync.close().catch(() => undefined);
    await s.pool.end().catch(() => undefined);
  }

  const unlocker = new TeamUnlocker({
    databaseUrl: o.databaseUrl,
    login: o.login,
    remembered,
    offlineCheck: o.offlineCheck ?? new KeyringAppSecret(offlineCheckName(o.databaseUrl, o.login)),
    onSignIn: signedIn,
    onIdleError: (err) => logger.warn({ err }, 'a team database connection failed'),
  });

  // Events recorded locally by charges wait here until the team database has them, in order.
  const pending: NewEvent[] = [];
  let timer: NodeJS.Timeout | null = null;
  let flushing = false;
  let delay = RETRY_FIRST_MS;

  function flush(): void {
    if (flushing || closed || !pending.length) return;
    const s = session;
    if (!s || wrongDatabase(s)) return schedule();
    flushing = true;
    const batch = pending.slice(0, 500);
    recordEvents(s.pool, batch).then(
      () => {
        pending.splice(0, batch.length);
        delay = RETRY_FIRST_MS;
        flushing = false;
        if (pending.length) flush();
      },
      (e: unknown) => {
        flushing = false;
        if (e instanceof TeamError && !(e instanceof TeamUnavailableError)) {
          // Refused (not an outage): retrying cannot help, and must not hold back the events behind it.
          logger.error(
            { err: e, references: batch.map((b) => b.merchantReference) },
            'the team database refused charge events',
          );
          pending.splice(0, batch.length);
          if (pending.length) flush();
          return;
        }
        logger.warn(
          { err: e, waiting: pending.length },
          'charge events kept in memory until the team database is back',
        );
        schedule();
      },
    );
  }

  function schedule(): void {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      flush();
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  }

  function refusal(e: unknown, doing: string): Error {
    const t = e instanceof TeamError ? e : translatePgError(e, doing, o.login);
    if (t instanceof DuplicateReferenceError) {
      const who = t.createdBy ? ` by ${t.createdBy}` : '';
      const when = t.createdAt ? ` at ${t.createdAt.toISOString()}` : '';
      return new PaymentError(
        'conflict',
        `Payment reference ${t.merchantReference} was already taken${who}${when}: that payment is being charged at another desk. Open it instead of charging again.`,
        'reference',
      );
    }
    if (t instanceof TeamPermissionError) {
      const role = session?.role;
      return new PaymentError(
        'forbidden',
        `${o.login}${role ? ` (${role.replace('_', ' ')})` : ''} may not take payments: the team database refused the intent. Ask an admin for the support role.`,
      );
    }
    if (t instanceof TeamUnavailableError) return new PaymentError('unavailable', OFFLINE_CHARGE);
    return t;
  }

  function requireSession(): TeamSession {
    if (!session) throw new PaymentError('unavailable', `Sign in as ${o.login} to the team database first.`);
    const wrong = wrongDatabase(session);
    if (wrong) throw new PaymentError('unavailable', wrong);
    return session;
  }

  /** Why nothing may be written, when the database is another team's than this desk's copy (sync/workspace.ts). */
  function wrongDatabase(s: TeamSession): string | null {
    const st = s.sync.status();
    return st.wrongDatabase
      ? `Nothing is recorded: ${st.error ?? 'the team database is not the one this desk was synced from'}`
      : null;
  }

  const charges: TeamChargeSeam = {
    async recordIntent(intent) {
      const s = requireSession();
      try {
        await recordIntent(s.pool, intent);
      } catch (e) {
        throw refusal(e, 'create an intent');
      }
    },
    async ensureReachable(reference) {
      const s = requireSession();
      try {
        await s.pool.query('SELECT 1 FROM team.intents WHERE merchant_reference = $1', [reference]);
      } catch (e) {
        throw refusal(e, 'read the intent');
      }
    },
    record(ev) {
      pending.push(ev);
      flush();
    },
  };

  async function recordFirst(evs: readonly NewEvent[], what: TeamFirstWhat): Promise<NewEvent[]> {
    const s = session;
    if (!s) throw new AppError('unavailable', `Sign in as ${o.login} to the team database first.`);
    const wrong = wrongDatabase(s);
    if (wrong) throw new AppError('unavailable', wrong);
    const keyed = evs.map(withTeamKey);
    try {
      // A retry after a partial failure stores nothing twice: the team log is idempotent by key.
      for (let i = 0; i < keyed.length; i += 1000) await recordEvents(s.pool, keyed.slice(i, i + 1000));
    } catch (e) {
      const t = e instanceof TeamError ? e : translatePgError(e, what.action, o.login);
      if (t instanceof TeamPermissionError)
        throw new AppError(
          'forbidden',
          `${o.login} (${s.role.replace('_', ' ')}) may not ${what.action}: the team database refused it.`,
        );
      if (t instanceof TeamUnavailableError)
        throw new AppError(
          'unavailable',
          `The team database cannot be reached, so no ${what.noun} can be recorded: each is recorded there first, so every desk sees it. The local copy stays readable; try again when the status bar says the team database is back.`,
        );
      throw t;
    }
    return keyed;
  }

  return {
    unlocker,
    recordFirst,
    session: () => session,
    rememberedPassword: () => remembered.get(),
    forgetPassword: () => remembered.delete(),
    state() {
      const s = session?.sync.status();
      return {
        login: o.login,
        role: session?.role ?? null,
        signedIn: session !== null,
        online: s?.online ?? false,
        lastSyncAt: s?.lastPullAt ?? null,
        error: s?.error ?? null,
        catchingUp: s?.catchingUp ?? null,
      };
    },
    charges,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const s = session;
      session = null;
      if (!s) return;
      if (pending.length) {
        await recordEvents(s.pool, pending.splice(0)).catch((e: unknown) =>
          logger.error({ err: e }, 'charge events not recorded to the team database at close'),
        );
      }
      await s.sync.close();
      await s.pool.end().catch(() => undefined);
    },
  };
}
