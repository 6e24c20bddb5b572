// What the status bar says, worked out from the workspace's state alone: no database, keychain or
// network here, so every case is a plain unit test (test/app/status.test.ts). The workspace gathers
// the state (main/app/workspace.ts) and pushes the result whenever it changes.
import type { Profile } from '../settings/index.js';
import type { PollerStatus } from '../poller/index.js';
import type { TeamRole } from '../team/roles.shared.js';
import { chainWords, rollbackWords, type TeamChainState, type TeamRollbackState } from '../team/chain-words.shared.js';
import { notificationsWarningWords, type TeamNotificationsState } from '../team/notify-words.shared.js';
import { english, words, type Words } from '../words/words.shared.js';
import { pollErrorWords } from '../poller/poll-words.shared.js';

/** What the status bar needs of the team link. */
export interface TeamLinkState {
  login: string;
  role: TeamRole | null;
  signedIn: boolean;
  online: boolean;
  /**
   * When the local copy last synced (ms since the epoch): this session's last pull, else when the copy
   * last took rows from the team database (before sign-in and until the first pull), or null: never.
   */
  lastSyncAt: number | null;
  /** Whether this session's sync has reached the team database yet (a pull answered). */
  reached: boolean;
  error: string | null;
  /**
   * While a desk catches up with the team (a new desktop's copy, or one that was away draining what it
   * missed): how far it is, by seq, of how far the team record goes.
   */
  catchingUp?: { copiedSeq: number; totalSeq: number } | null;
  /** Set when the connection to the team database is not protected (plain text or unchecked TLS off loopback). */
  transportWarning?: string | null;
  transportWarningWords?: Words | null;
  /** This desk's outbox (team/sync/push.ts): events waiting for the team database, and those it refused. */
  outbox?: { pending: number; refused: number } | null;
  /** The team events' hash chain as this desk checked it: verified through a seq, or the alarm. */
  chain?: TeamChainState | null;
  /**
   * The last time the team record went back in time (a failover, a restore from backup), and what this
   * desk did about it (team/sync/rollback.ts); null when it never did.
   */
  rollback?: TeamRollbackState | null;
  /**
   * A new desk's background re-check of the signatures it took from the team's snapshot
   * (team/sync/signature-check.ts): signed events checked of how many, and how many did not verify.
   */
  signatures?: { checked: number; total: number; failed: number } | null;
  /** Whether notifications were proven to arrive at this desk (team/sync/notify-probe.ts); how often it pulls. */
  notifications?: TeamNotificationsState | null;
}

/** What the status bar shows. Times are ms since the epoch. */
export interface AppStatus {
  profile: Profile;
  /** online: the last poll worked; offline: no answer (network); error: the service answered badly. */
  connection: 'starting' | 'online' | 'offline' | 'error' | 'not_configured';
  /** A readable reason when connection is not online (English), and its words for the window. */
  message: string | null;
  words: Words | null;
  lastSuccessfulPoll: number | null;
  /** Whether keys persist in the OS keychain, are held in memory (embedded), or the keychain failed. */
  keychain: 'available' | 'memory' | 'unavailable';
  /** Team profile only: who is signed in and whether the team database answers (absent on solo profiles). */
  team?: TeamLinkState;
}

export interface StatusState {
  profile: Profile;
  keychain: AppStatus['keychain'];
  /** Whether the first connection attempt is over (it may have failed). */
  started: boolean;
  /** Whether the embedded sandbox runs (only asked of the embedded profile). */
  sandboxRunning: boolean;
  /** Why the first start failed, when it did. */
  startError: string | null;
  /** The connection: null before the first attempt, else whether it is usable and why not. */
  connection: { ok: true } | { ok: false; message: string; words?: Words | undefined } | null;
  /** The poller's status, when a poller runs. */
  poller: PollerStatus | null;
  /** The last successful poll the poll log remembers (used until this session's poller has one). */
  lastSuccessFromLog: number | null;
  /** The team link's state (team profile only; its desks poll nothing: serve does). */
  team?: TeamLinkState | null;
}

/** HH:MM in this computer's time zone (main and the window share it). */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

type Said = Pick<AppStatus, 'connection' | 'message' | 'words'>;

/** A connection state with its words (and their English, which logs and tests read). */
function said(connection: AppStatus['connection'], w: Words | null): Said {
  return { connection, message: w && english(w), words: w };
}

/** "Catching up with the team: N events behind" (by seq: what the desk has not applied yet). */
function catchingUpWords(c: { copiedSeq: number; totalSeq: number }): Words {
  return words('status.catchingUp', { behind: Math.max(0, c.totalSeq - c.copiedSeq) });
}

/** The team profile's connection is the team database's (its service calls are charges only). */
function teamConnection(t: TeamLinkState): Said {
  if (!t.signedIn) return said('starting', words('status.signInToReach', { login: t.login }));
  // The record no longer matching its hash chain outranks everything else a signed-in desk could say.
  if (t.chain?.broken) return said('error', chainWords(t.chain).words);
  // A record that went back in time is said in its own words while the desk puts it right, and for as
  // long as events it held are not back (never silently).
  if (t.online && t.rollback && (t.rollback.phase === 'restoring' || t.rollback.unrestoredCount > 0))
    return said('online', rollbackWords(t.rollback).words);
  if (t.catchingUp) {
    // A desk that reached the team database and drains what it missed is online (its screens and its
    // charges work meanwhile); one that has not finished its first pull is still starting.
    return said(t.online ? 'online' : 'starting', catchingUpWords(t.catchingUp));
  }
  const refused = t.outbox?.refused ?? 0;
  const pending = t.outbox?.pending ?? 0;
  const checking = t.signatures
    ? words(t.signatures.failed ? 'status.checkingSignaturesFailed' : 'status.checkingSignatures', {
        checked: t.signatures.checked,
        total: t.signatures.total,
        failed: t.signatures.failed,
      })
    : null;
  // Notifications that do not arrive are said for as long as it holds: "Online" alone would promise too much.
  const notArriving = t.notifications ? notificationsWarningWords(t.notifications) : null;
  if (t.online && (checking || notArriving) && !refused) return said('online', notArriving ?? checking);
  // A refusal is never silent: the status bar says it until the events are dealt with.
  if (t.online) return said('online', refused ? words('status.refused', { refused }) : null);
  if (t.error === null && !t.reached) return said('starting', words('status.connectingTeam'));
  return said(
    'offline',
    words(
      t.lastSyncAt === null
        ? pending
          ? 'status.teamUnreachableNeverWaiting'
          : 'status.teamUnreachableNever'
        : pending
          ? 'status.teamUnreachableWaiting'
          : 'status.teamUnreachable',
      { ...(t.lastSyncAt === null ? {} : { lastSyncTime: t.lastSyncAt }), pending },
    ),
  );
}

/** A poll's failure in the status bar: its own words when this session saw it, else its English. */
function pollSaid(
  connection: 'offline' | 'error',
  e: { message: string; kind?: string; words?: Words | undefined },
): Said {
  return said(connection, pollErrorWords({ kind: connection === 'offline' ? 'network' : 'other', ...e }));
}

export function statusFrom(s: StatusState): AppStatus {
  const base = { profile: s.profile, keychain: s.keychain, ...(s.team ? { team: s.team } : {}) };
  const ps = s.poller;
  // Before this session's first poll, the last success is the one the poll log remembers.
  const lastSuccessfulPoll = ps ? (ps.balances.lastSuccessAt ?? ps.providers.lastSuccessAt) : s.lastSuccessFromLog;
  if (!s.started) {
    const w = words(s.profile === 'embedded' && !s.sandboxRunning ? 'status.startingSandbox' : 'status.connecting');
    return { ...base, ...said('starting', w), lastSuccessfulPoll };
  }
  if (s.startError !== null)
    return {
      ...base,
      ...said('error', words('status.startFailed', { reason: s.startError })),
      lastSuccessfulPoll,
    };
  if (!s.connection || !s.connection.ok) {
    const w = s.connection
      ? (s.connection.words ?? words('status.notConfigured', { reason: s.connection.message }))
      : words('status.startingShort');
    return { ...base, ...said('not_configured', w), lastSuccessfulPoll };
  }
  if (s.team) return { ...base, ...teamConnection(s.team), lastSuccessfulPoll };
  const c = ps?.connection ?? { state: 'idle' as const };
  switch (c.state) {
    case 'idle':
      return { ...base, ...said('starting', null), lastSuccessfulPoll };
    case 'online':
      return { ...base, ...said('online', null), lastSuccessfulPoll };
    case 'offline':
      return { ...base, ...pollSaid('offline', c), lastSuccessfulPoll };
    case 'error':
      return { ...base, ...pollSaid('error', c), lastSuccessfulPoll };
  }
}
