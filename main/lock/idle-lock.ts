// The idle lock lives in main, so a renderer that stops reporting (crashed, hung, tampered with) cannot
// keep the app open: after `idleMs` without activity main locks, and the IPC gate (ipc/lock-gate.ts) refuses
// every call but unlocking. Locking stops nothing already running: a charge sent before the lock
// finishes in main and stores its result as usual; the renderer refetches after unlock.
import { doublingDelay, type Clock } from '../clock.js';
import type { Unlocker } from './unlocker.js';
import { LockError } from './errors.js';
import { words, type Words } from '../words/words.shared.js';
import { DeskError } from '../errors.shared.js';

export const MAX_IDLE_MINUTES = 15;

/** What the lock screen shows (the contract's lock.status answer). */
export interface LockStatus {
  locked: boolean;
  /** What unlocks: the local passphrase (solo profiles) or the operator's own password (team). */
  method: 'passphrase' | 'password';
  /** True until the local passphrase is chosen (first use): the lock screen asks for a new one. */
  needsSetup: boolean;
  /** Idle time before the app locks itself. */
  idleLockMs: number;
  /**
   * Why the passphrase cannot be read or stored (e.g. the keychain is unavailable), or why the last
   * sign-in was refused other than as wrong (team: the operator is disabled), or null.
   */
  problem: Words | null;
  /** Team: the operator who signs in ("Sign in as LOGIN"); null for the solo passphrase. */
  login: string | null;
}

export interface IdleLockOptions {
  clock: Clock;
  /** Idle time before locking, read at every check (the setting may change while the app runs). */
  idleMs: () => number;
  /** Read at each use: which unlocker applies depends on the active profile. */
  unlocker: () => Unlocker;
  /** Called after the app locks or unlocks (the shells forward it to the renderer). */
  onChange?: (e: { locked: boolean; reason: 'idle' | 'manual' | 'unlocked' }) => void;
  /** How often a real timer checks for idleness; 0 leaves checking to the caller (tests, with a fake clock). */
  checkEveryMs?: number;
  /** Start locked (a team profile: the lock screen is its sign-in screen). */
  startLocked?: boolean;
  /** Wrong answers in a row before each further try must wait (doubling from `backoffMs`). */
  freeTries?: number;
  backoffMs?: number;
}

export interface IdleLock {
  /** Input or a call from the window: the idle time starts again. Ignored while locked. */
  activity(): void;
  /** Locks when the idle time has passed; returns whether the app is locked. */
  check(): boolean;
  isLocked(): boolean;
  lockNow(): void;
  status(): Promise<LockStatus>;
  /** Unlocks with the right secret; a wrong one throws LockError('wrong_passphrase'). */
  unlock(secret: string, opts?: { remember?: boolean }): Promise<LockStatus>;
  /** First use: chooses the local passphrase, then unlocks (if locked). */
  setPassphrase(passphrase: string): Promise<LockStatus>;
  close(): void;
}

export function createIdleLock(opts: IdleLockOptions): IdleLock {
  const { clock } = opts;
  const freeTries = opts.freeTries ?? 5;
  const backoffMs = opts.backoffMs ?? 1_000;
  let locked = opts.startLocked ?? false;
  let lastActivity = clock.now();
  let failures = 0;
  let nextTryAt = 0;

  const setLocked = (value: boolean, reason: 'idle' | 'manual' | 'unlocked') => {
    if (locked === value) return;
    locked = value;
    lastActivity = clock.now();
    opts.onChange?.({ locked, reason });
  };

  const check = () => {
    if (!locked && clock.now() - lastActivity >= opts.idleMs()) setLocked(true, 'idle');
    return locked;
  };

  const timer = (opts.checkEveryMs ?? 1_000) > 0 ? setInterval(check, opts.checkEveryMs ?? 1_000) : null;
  timer?.unref();

  async function status(): Promise<LockStatus> {
    const u = opts.unlocker();
    let needsSetup = false;
    let problem: Words | null = null;
    try {
      needsSetup = await u.needsSetup();
    } catch (e) {
      problem = e instanceof DeskError && e.words ? e.words : words('lock.keychain');
    }
    problem ??= u.problem?.() ?? null;
    return { locked, method: u.method, needsSetup, idleLockMs: opts.idleMs(), problem, login: u.login ?? null };
  }

  function refuseWhileBackingOff(): void {
    const wait = nextTryAt - clock.now();
    if (wait > 0) {
      throw new LockError('rate_limited', words('lock.tooManyTries', { seconds: Math.ceil(wait / 1000) }), 'secret');
    }
  }

  return {
    activity() {
      // Past the idle time but not yet checked: the next check locks; activity must not undo that.
      if (!check()) lastActivity = clock.now();
    },
    check,
    isLocked: () => locked,
    lockNow: () => setLocked(true, 'manual'),
    status,
    async unlock(secret, o = {}) {
      if (!locked) return status();
      refuseWhileBackingOff();
      const u = opts.unlocker();
      if (await u.needsSetup()) throw new LockError('conflict', words('lock.noPassphraseYet'), 'secret');
      if (!(await u.verify(secret, o))) {
        failures += 1;
        if (failures >= freeTries)
          nextTryAt = clock.now() + doublingDelay(failures - freeTries + 1, backoffMs, backoffMs * 2 ** 8);
        throw new LockError(
          'wrong_passphrase',
          words(u.method === 'password' ? 'lock.wrongPassword' : 'lock.wrongPassphrase'),
          'secret',
        );
      }
      failures = 0;
      nextTryAt = 0;
      setLocked(false, 'unlocked');
      return status();
    },
    async setPassphrase(passphrase) {
      await opts.unlocker().setUp(passphrase);
      failures = 0;
      setLocked(false, 'unlocked');
      return status();
    },
    close() {
      if (timer) clearInterval(timer);
    },
  };
}
