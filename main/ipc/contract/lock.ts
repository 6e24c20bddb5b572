// The idle lock. While the app is locked main refuses every channel with kind 'locked' except
// lock.status, lock.unlock and (until a passphrase exists) lock.setPassphrase.
import { z } from 'zod';
import { channel, noRequest } from './define.js';

import type { LockStatus } from '../../lock/idle-lock.js';

export type { LockStatus };

const secret = z.string().min(1, 'errors.zod.empty').max(1024, 'errors.zod.tooLong');

export const lockChannels = {
  'lock.status': channel<typeof noRequest, LockStatus>(noRequest),
  /** A wrong secret answers kind 'wrong_passphrase' with field 'secret'. remember: team sign-in only. */
  'lock.unlock': channel<z.ZodObject<{ secret: typeof secret; remember: z.ZodOptional<z.ZodBoolean> }>, LockStatus>(
    z.object({ secret, remember: z.boolean().optional() }),
  ),
  /** First use only: chooses the local passphrase (kept as a scrypt hash in the keychain) and unlocks. */
  'lock.setPassphrase': channel<z.ZodObject<{ passphrase: typeof secret }>, LockStatus>(
    z.object({ passphrase: secret }),
  ),
  'lock.lockNow': channel<typeof noRequest, LockStatus>(noRequest),
  /** The renderer saw input (keys, pointer, wheel); sent at most every 30 s. */
  'lock.activity': channel<typeof noRequest, null>(noRequest),
};

export type lockEvents = {
  /** The app locked or unlocked: the renderer shows only the lock screen, or refetches what it shows. */
  'lock.changed': { locked: boolean };
};
