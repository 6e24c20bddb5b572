import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
import type { lockChannels } from '../contract/lock.js';
import type { HandlersFor } from './types.js';

/** What these handlers call on the desk. */
export type LockOperations = Pick<Operations, 'lockNow' | 'setPassphrase' | 'unlock'>;
export type LockQueries = Pick<Queries, 'lockStatus'>;

export const lockHandlers = (ops: LockOperations, q: LockQueries): HandlersFor<typeof lockChannels> => ({
  'lock.status': () => q.lockStatus(),
  'lock.unlock': ({ secret, remember }) => ops.unlock(secret, remember === undefined ? {} : { remember }),
  'lock.setPassphrase': ({ passphrase }) => ops.setPassphrase(passphrase),
  'lock.lockNow': () => {
    ops.lockNow();
    return q.lockStatus();
  },
  // The gate has already counted the call as activity.
  'lock.activity': () => null,
});
