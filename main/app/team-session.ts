// A team desk's signed-in session as the app starts it (team.ts createTeamLink, at each sign-in): the
// session's hooks into the screens (what the sync wrote, the operator's role, a sign-out) and the notices
// the sync's status gives, each told once.
import type pg from 'pg';
import type { TeamRole } from '../team/roles.shared.js';
import { startTeamSession, type TeamSession } from '../team/session.js';
import { rollbackWords } from '../team/chain-words.shared.js';
import type { TeamSyncStatus } from '../team/sync/pull.js';
import { notificationsExplainedWords } from '../team/notify-words.shared.js';
import { words } from '../words/words.shared.js';
import { noticeOf } from './event-bus.js';
import type { AppEventBus } from './event-bus.js';
import type { teamNotices } from './team-notices.js';
import { heapWhileCatchingUp } from './heap.js';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import type { Ledger } from '../collections/ledger.js';
import type { SignatureKeys } from '../service/verify-callback.js';

/** What a session is started with: team.ts's TeamLinkOptions, of which it uses these. */
export interface SessionOptions {
  db: Db;
  ledger: Ledger;
  clock: Clock;
  logger: Logger;
  events: AppEventBus;
  login: string;
  onChange: () => void;
  syncEveryMs?: number;
  standingEveryMs?: number;
  verificationKeys?: () => SignatureKeys;
  verificationKeysReady?: () => Promise<unknown>;
}

/**
 * What the sync's status tells the screens beside the status bar, each once: the record went back in time
 * (a failover, a restore from backup: told once found, once re-based), notifications that do not arrive,
 * and the team database reachable again.
 */
export function syncStatusNotices(events: AppEventBus): (s: TeamSyncStatus) => void {
  let wasOffline = false;
  /** The rollback last told (team/sync/rollback.ts): each one found or re-based is told once. */
  let toldRollback: string | null = null;
  /** Whether this desk said that notifications do not arrive (said once, until they arrive again). */
  let toldNotArriving = false;
  return (s) => {
    // The record went back in time (a failover, a restore from backup): told once found, once re-based.
    const rb = s.rollback ? `${s.rollback.foundAt}:${s.rollback.phase}` : null;
    if (rb && rb !== toldRollback && s.rollback) {
      const first = toldRollback === null && s.rollback.phase === 'rebased';
      toldRollback = rb;
      if (!first) events.emit('notice', noticeOf('warning', rollbackWords(s.rollback).words));
    }
    // Notifications that do not arrive (a transaction-mode pool) are said once as a notice naming the fix,
    // and for as long as it holds in the status bar (status.ts).
    if (s.notifications.arriving === false && !toldNotArriving) {
      toldNotArriving = true;
      events.emit('notice', noticeOf('warning', notificationsExplainedWords(s.notifications)));
    } else if (s.notifications.arriving === true) toldNotArriving = false;
    if (!s.online && s.error) wasOffline = true;
    else if (s.online && !s.error && wasOffline) {
      wasOffline = false;
      events.emit('notice', noticeOf('info', words('app.notice.teamBack')));
    }
  };
}

/**
 * Starts the signed-in session on `pool`: what the sync writes behind the screens is told the way the
 * local poller and receiver tell it, and what it hears of this login (its role, disabled, refused) reaches
 * the status bar, a notice, or a sign-out.
 */
export function startSession(
  o: SessionOptions,
  pool: pg.Pool,
  role: TeamRole,
  notices: ReturnType<typeof teamNotices>,
  hooks: { signOut(why: 'disabled' | 'refused'): void; statusNotices(s: TeamSyncStatus): void },
): TeamSession {
  const { logger, events } = o;
  return startTeamSession({
    pool,
    login: o.login,
    role,
    db: o.db,
    ledger: o.ledger,
    clock: o.clock,
    logger,
    syncEveryMs: o.syncEveryMs,
    evidenceKeys: o.verificationKeys,
    evidenceReady: o.verificationKeysReady,
    // What the sync writes behind the screens is told the way the local poller and receiver tell it.
    onApplied: notices.onApplied,
    onOrphans: notices.onOrphans,
    onCopied: notices.onCopied,
    onPolled: (what, changed) =>
      events.emit(what === 'balances' ? 'balances.polled' : 'options.polled', { outcome: 'ok', changed }),
    standingEveryMs: o.standingEveryMs,
    // The role the database holds now, within moments of an admin's change: the status bar, the
    // screens' controls (they follow the status's role) and a notice that says who changed it.
    onRoleChanged: (next, was, by) => {
      logger.info({ login: o.login, role: next, was, by }, 'the team database holds another role for this login');
      const roles = { wasId: `app.role.${was}`, nextId: `app.role.${next}` } as const;
      events.emit(
        'notice',
        noticeOf(
          'info',
          by ? words('app.notice.roleChanged', { by, ...roles }) : words('app.notice.roleChangedAdmin', roles),
        ),
      );
      o.onChange();
    },
    onDisabled: () => hooks.signOut('disabled'),
    // An admin's open operator list re-reads (another admin's change, or this desk's own).
    onOperatorChanged: (login) => events.emit('team.operatorsChanged', { login }),
    onStatus: (s: TeamSyncStatus) => {
      heapWhileCatchingUp(s.catchingUp ? s.catchingUp.totalSeq - s.catchingUp.copiedSeq : 0);
      if (s.signInRefused) {
        hooks.signOut(s.disabled ? 'disabled' : 'refused');
        return;
      }
      hooks.statusNotices(s);
      o.onChange();
    },
    onRefused: (entries, reason) => {
      notices.onRefused(entries, reason);
      o.onChange(); // the status bar counts them
    },
  });
}
