// Errors the lock shows as they are (dispatch passes on any Error with `expose: true`, a kind and a field).
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
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** What every refused call answers while the app is locked. */
export const LOCKED_MESSAGE = 'Merchant Desk is locked: unlock it to continue.';
