// Errors the lock shows (dispatch passes on any Error with `expose: true`, a kind, a field and words).
import { english, words, type Words } from '../words/words.shared.js';

export type LockErrorKind =
  | 'locked'
  | 'wrong_passphrase'
  /** The right password of an operator an admin disabled (team sign-in). */
  | 'disabled'
  | 'validation'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable';

export class LockError extends Error {
  override name = 'LockError';
  readonly expose = true;
  constructor(
    readonly kind: LockErrorKind,
    readonly words: Words,
    readonly field?: string,
  ) {
    super(english(words));
  }
}

/** What every refused call answers while the app is locked. */
export const LOCKED_WORDS = words('lock.locked');
export const LOCKED_MESSAGE = english(LOCKED_WORDS);
