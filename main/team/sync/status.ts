// The team sync's status: one object, computed here and nowhere else, told to its watchers (the
// session's outbox push, the app's status bar) when it changes. The parts of the sync say what happened
// (reached the database, a pull succeeded or failed, a batch applied, the chain or a rollback changed);
// this works out what the status then says, in words for a failure.
import type { ChainState } from './chain-check.js';
import type { SignatureCheckProgress } from './signature-check.js';
import type { TeamRollbackState } from '../chain-words.shared.js';
import type { TeamNotificationsState } from '../notify-words.shared.js';
import { TeamDisabledError, TeamSignInError, TeamUnavailableError } from '../errors.js';
import { TeamWorkspaceMismatchError } from './workspace.js';

export interface TeamSyncStatus {
  online: boolean;
  lastSeq: number;
  lastPullAt: number | null;
  error: string | null;
  /** The database refused this login's password (changed, or the operator disabled): the session must end. */
  signInRefused: boolean;
  /** ... because an admin disabled the operator (the database says so only once the password was right). */
  disabled: boolean;
  /** The database is another team's (sync/workspace.ts): nothing is applied, and nothing may be written. */
  wrongDatabase: boolean;
  /** While a new desktop copies the team history in bulk (sync/bulk.ts), or one drains a backlog: how far, by seq; else null. */
  catchingUp: { copiedSeq: number; totalSeq: number } | null;
  /** The events' hash chain as this desk checked it (sync/chain-check.ts): verified through, or the alarm. */
  chain: ChainState;
  /** While a new desk re-checks the signatures it took from a snapshot (sync/signature-check.ts); else null. */
  signatures: SignatureCheckProgress | null;
  /** The last time the team record went back in time (sync/rollback.ts): what was lost, put back, listed; else null. */
  rollback: TeamRollbackState | null;
  /** Whether notifications were proven to arrive (sync/notify-probe.ts), and how often the desk pulls meanwhile. */
  notifications: TeamNotificationsState;
}

export interface SyncStatus {
  get(): TeamSyncStatus;
  /** Changes the status and tells the watchers. */
  set(next: Partial<TeamSyncStatus>): void;
  /** Changes it without telling (a drain's progress between two beats); the next set() tells it all. */
  note(next: Partial<TeamSyncStatus>): void;
  watch(cb: (s: TeamSyncStatus) => void): () => void;
  /** The team database answered and is this desk's team's: online from now, while it catches up. */
  reached(): void;
  /** A pull succeeded at `at`: online, no error. */
  pulled(at: number): void;
  /** A pull failed: the words for it, and which kind of refusal it was. */
  failed(err: Error, retry: { silent: boolean; ms: number }): void;
}

/** The words a failed pull gives the status bar (the retry's pace in them while the database cannot be reached). */
export function failureWords(err: Error, retry: { silent: boolean; ms: number }): string {
  if (!(err instanceof TeamUnavailableError)) return `Team sync failed: ${err.message}`;
  const when = retry.silent ? 'trying again every second' : `retrying in ${Math.round(retry.ms / 1000) || 1} s`;
  return `Offline: the team database cannot be reached; showing this desktop's copy and ${when} (${err.message})`;
}

/** The status a sync starts with: offline, at the seq the desk applied, nothing checked yet. */
export function initialStatus(
  lastSeq: number,
  signatures: SignatureCheckProgress | null,
  pullEveryMs: number,
): TeamSyncStatus {
  return {
    online: false,
    lastSeq,
    lastPullAt: null,
    error: null,
    signInRefused: false,
    disabled: false,
    wrongDatabase: false,
    catchingUp: null,
    chain: { verifiedSeq: 0, recheckedAt: null, broken: null },
    signatures,
    rollback: null,
    notifications: { arriving: null, checkedAt: null, pullEveryMs },
  };
}

export function createSyncStatus(
  initial: TeamSyncStatus,
  logger: { warn(obj: object, msg?: string): void },
): SyncStatus {
  let state = initial;
  const watchers = new Set<(s: TeamSyncStatus) => void>();
  const set = (next: Partial<TeamSyncStatus>): void => {
    state = { ...state, ...next };
    for (const cb of watchers) {
      try {
        cb(state);
      } catch (e) {
        logger.warn({ err: e }, 'team sync: a status watcher failed');
      }
    }
  };
  return {
    get: () => state,
    set,
    note(next) {
      state = { ...state, ...next };
    },
    watch(cb) {
      watchers.add(cb);
      return () => watchers.delete(cb);
    },
    reached() {
      if (!state.online) set({ online: true, wrongDatabase: false, signInRefused: false, disabled: false });
    },
    pulled(at) {
      set({ online: true, error: null, signInRefused: false, disabled: false, wrongDatabase: false, lastPullAt: at });
    },
    failed(err, retry) {
      const message = failureWords(err, retry);
      if (state.error !== message) logger.warn({ err, retryMs: retry.ms }, 'team sync: pull failed');
      set({
        online: !(err instanceof TeamUnavailableError) && state.online,
        error: message,
        signInRefused: err instanceof TeamSignInError,
        disabled: err instanceof TeamDisabledError,
        wrongDatabase: err instanceof TeamWorkspaceMismatchError,
      });
    },
  };
}
