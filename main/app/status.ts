// What the status bar says, worked out from the workspace's state alone: no database, keychain or
// network here, so every case is a plain unit test (test/app/status.test.ts). The workspace gathers
// the state (main/app/workspace.ts) and pushes the result whenever it changes.
import type { Profile } from '../settings/index.js';
import type { PollerStatus } from '../poller/index.js';
import type { TeamRole } from '../team/roles.shared.js';
import { chainWords, rollbackWords, type TeamChainState, type TeamRollbackState } from '../team/chain-words.shared.js';
import { notificationsWarning, type TeamNotificationsState } from '../team/notify-words.shared.js';

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
  /** A readable reason when connection is not online. */
  message: string | null;
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
  connection: { ok: true } | { ok: false; message: string } | null;
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

/** "Catching up with the team: N events behind" (by seq: what the desk has not applied yet). */
function catchingUpWords(c: { copiedSeq: number; totalSeq: number }): string {
  const behind = Math.max(0, c.totalSeq - c.copiedSeq);
  return `Catching up with the team: ${behind.toLocaleString('en')} event${behind === 1 ? '' : 's'} behind`;
}

/** The team profile's connection is the team database's (its service calls are charges only). */
function teamConnection(t: TeamLinkState): Pick<AppStatus, 'connection' | 'message'> {
  if (!t.signedIn) return { connection: 'starting', message: `Sign in as ${t.login} to reach the team database.` };
  // The record no longer matching its hash chain outranks everything else a signed-in desk could say.
  if (t.chain?.broken) return { connection: 'error', message: chainWords(t.chain).text };
  // A record that went back in time is said in its own words while the desk puts it right, and for as
  // long as events it held are not back (never silently).
  if (t.online && t.rollback && (t.rollback.phase === 'restoring' || t.rollback.unrestoredCount > 0))
    return { connection: 'online', message: rollbackWords(t.rollback).text };
  if (t.catchingUp) {
    // A desk that reached the team database and drains what it missed is online (its screens and its
    // charges work meanwhile); one that has not finished its first pull is still starting.
    return { connection: t.online ? 'online' : 'starting', message: catchingUpWords(t.catchingUp) };
  }
  const refused = t.outbox?.refused ?? 0;
  const pending = t.outbox?.pending ?? 0;
  const checking = t.signatures
    ? `Checking signatures: ${t.signatures.checked.toLocaleString('en')} of ${t.signatures.total.toLocaleString('en')}${
        t.signatures.failed ? ` (${t.signatures.failed.toLocaleString('en')} did not verify)` : ''
      }`
    : null;
  // Notifications that do not arrive are said for as long as it holds: "Online" alone would promise too much.
  const notArriving = t.notifications ? notificationsWarning(t.notifications) : null;
  if (t.online && (checking || notArriving) && !refused)
    return { connection: 'online', message: notArriving ?? checking };
  if (t.online)
    return {
      connection: 'online',
      // A refusal is never silent: the status bar says it until the events are dealt with.
      message: refused
        ? refused === 1
          ? "1 of this desk's events was not accepted by the team database: its collection says why"
          : `${refused} of this desk's events were not accepted by the team database: their collections say why`
        : null,
    };
  if (t.error === null && !t.reached) return { connection: 'starting', message: 'Connecting to the team database…' };
  const waiting = pending
    ? `; ${pending} event${pending === 1 ? '' : 's'} of this desk wait${pending === 1 ? 's' : ''} to be sent, none is lost`
    : '';
  return {
    connection: 'offline',
    message: `Team database unreachable — showing the local copy, ${t.lastSyncAt === null ? 'not synced yet' : `last synced ${clockTime(t.lastSyncAt)}`}${waiting}`,
  };
}

export function statusFrom(s: StatusState): AppStatus {
  const base = { profile: s.profile, keychain: s.keychain, ...(s.team ? { team: s.team } : {}) };
  const ps = s.poller;
  // Before this session's first poll, the last success is the one the poll log remembers.
  const lastSuccessfulPoll = ps ? (ps.balances.lastSuccessAt ?? ps.providers.lastSuccessAt) : s.lastSuccessFromLog;
  if (!s.started) {
    const message = s.profile === 'embedded' && !s.sandboxRunning ? 'Starting the sandbox…' : 'Connecting…';
    return { ...base, connection: 'starting', message, lastSuccessfulPoll };
  }
  if (s.startError !== null)
    return { ...base, connection: 'error', message: `Start-up failed: ${s.startError}`, lastSuccessfulPoll };
  if (!s.connection || !s.connection.ok) {
    return {
      ...base,
      connection: 'not_configured',
      message: s.connection ? s.connection.message : 'starting',
      lastSuccessfulPoll,
    };
  }
  if (s.team) return { ...base, ...teamConnection(s.team), lastSuccessfulPoll };
  const c = ps?.connection ?? { state: 'idle' as const };
  switch (c.state) {
    case 'idle':
      return { ...base, connection: 'starting', message: null, lastSuccessfulPoll };
    case 'online':
      return { ...base, connection: 'online', message: null, lastSuccessfulPoll };
    case 'offline':
      return { ...base, connection: 'offline', message: c.message, lastSuccessfulPoll };
    case 'error':
      return { ...base, connection: 'error', message: c.message, lastSuccessfulPoll };
  }
}
