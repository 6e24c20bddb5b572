import type { Core } from '../../app/core.js';
import type { lockChannels } from '../contract/lock.js';
import type { HandlersFor } from './types.js';

export const lockHandlers = (core: Core): HandlersFor<typeof lockChannels> => ({
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
