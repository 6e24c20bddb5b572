// The app's idle lock as the composition root builds it: idle time from the active profile's setting,
// the solo passphrase in the OS keychain, lock changes logged and handed on.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { KeyringAppSecret } from '../secrets/index.js';
import { createIdleLock, MAX_IDLE_MINUTES, type IdleLock } from './idle-lock.js';
import { PassphraseUnlocker, type Unlocker } from './unlocker.js';

/** The keychain account (app:<name>) holding the scrypt hash of the solo lock passphrase. */
export const PASSPHRASE_SECRET = 'lock-passphrase';

export interface AppLockOptions {
  clock: Clock;
  /** The active profile's idle setting, in minutes. */
  idleLockMinutes: () => number;
  /** The app locked or unlocked (the composition root pushes it to the renderer). */
  onChange: (locked: boolean) => void;
  logger: Pick<Logger, 'info'>;
  /** Read at each use; null (or absent): the solo passphrase in the OS keychain. The team profile passes its sign-in. */
  unlocker?: () => Unlocker | null;
  checkEveryMs?: number;
  /** Start locked (the team profile signs in first). */
  startLocked?: boolean;
}

export function createAppLock(o: AppLockOptions): IdleLock {
  const solo = new PassphraseUnlocker(new KeyringAppSecret(PASSPHRASE_SECRET));
  return createIdleLock({
    clock: o.clock,
    idleMs: () => {
      try {
        return Math.round(o.idleLockMinutes() * 60_000);
      } catch {
        // The settings cannot be read (a database closing during a profile switch): the longest allowed.
        return MAX_IDLE_MINUTES * 60_000;
      }
    },
    unlocker: () => o.unlocker?.() ?? solo,
    ...(o.checkEveryMs === undefined ? {} : { checkEveryMs: o.checkEveryMs }),
    ...(o.startLocked ? { startLocked: true } : {}),
    onChange: ({ locked, reason }) => {
      o.logger.info({ reason }, locked ? 'app locked' : 'app unlocked');
      o.onChange(locked);
    },
  });
}
