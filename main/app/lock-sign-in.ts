// The app's lock and the team sign-in it is (composeCore builds them once): the lock outlives a profile
// switch; on a team profile the app starts locked, and a password the operator asked to be remembered
// signs them in by itself.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { loadSettings } from '../settings/index.js';
import { createAppLock, LockError, type IdleLock, type Unlocker } from '../lock/index.js';
import type { AppEventBus } from './event-bus.js';
import type { Workspace } from './workspace.js';

/**
 * The app's lock: it belongs to the app, not to a profile, and outlives a profile switch. On a team
 * profile it is also the sign-in: the app starts locked and the operator's password opens the team session.
 */
export function createLock(
  given: { unlocker?: () => Unlocker; checkEveryMs?: number } | undefined,
  o: { clock: Clock; logger: Logger; events: AppEventBus; current: () => Workspace },
): IdleLock {
  const { current } = o;
  return createAppLock({
    clock: o.clock,
    idleLockMinutes: () => loadSettings(current().db).idleLockMinutes,
    onChange: (locked) => o.events.emit('lock.changed', { locked }),
    logger: o.logger,
    startLocked: current().team() !== null,
    ...(given?.checkEveryMs === undefined ? {} : { checkEveryMs: given.checkEveryMs }),
    unlocker: () => given?.unlocker?.() ?? current().team()?.unlocker ?? null,
  });
}

/**
 * A password the operator asked to be remembered signs them in by itself (at start, and after a switch
 * to a team profile or a reopen, which lock first); a stale one is forgotten. Resolves once the start's
 * sign-in is done.
 */
export function signInRemembered(o: {
  lock: IdleLock;
  logger: Logger;
  events: AppEventBus;
  current: () => Workspace;
}): Promise<void> {
  const { lock, logger, current } = o;
  async function signIn(): Promise<void> {
    const link = current().team();
    if (!link) return;
    let password: string | null;
    try {
      password = await link.rememberedPassword();
    } catch (e) {
      logger.warn({ err: e }, 'cannot read the remembered team password');
      return;
    }
    if (!password || link !== current().team()) return;
    try {
      await lock.unlock(password);
    } catch (e) {
      if (e instanceof LockError && e.kind === 'wrong_passphrase') {
        logger.info('the remembered team password was refused; forgotten');
        await link.forgetPassword().catch(() => {});
      } else logger.warn({ err: e }, 'signing in with the remembered team password failed');
    }
  }
  const signedInOnStart = signIn();
  o.events.subscribe((event) => {
    if ((event !== 'profile.switched' && event !== 'workspace.reopened') || !current().team()) return;
    // Another profile's operator, or the newly named one, signs in before the data shows.
    lock.lockNow();
    void signIn();
  });
  return signedInOnStart;
}
