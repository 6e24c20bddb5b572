import type { Core } from '../../app/core.js';
import type { lockChannels } from '../contract/lock.js';
import type { HandlersFor } from './types.js';

/** What these handlers call on the desk: named, not the whole Core. */
export type LockDeps = Pick<Core, 'lock'>;

export const lockHandlers = (core: LockDeps): HandlersFor<typeof lockChannels> => ({
  'lock.status': () => core.lock.status(),
  'lock.unlock': ({ secret, remember }) => core.lock.unlock(secret, remember === undefined ? {} : { remember }),
  'lock.setPassphrase': ({ passphrase }) => core.lock.setPassphrase(passphrase),
  'lock.lockNow': () => {
    core.lock.lockNow();
    return core.lock.status();
  },
  // The gate has already counted the call as activity.
  'lock.activity': () => null,
});
