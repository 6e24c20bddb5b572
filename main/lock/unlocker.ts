// Who may unlock a locked app. Solo profiles check a local passphrase chosen on first use and kept only
// as a scrypt hash in the OS keychain; the team profile will implement the same interface by signing in
// to PostgreSQL with the operator's own password, so the lock itself never knows which it is.
import type { AppSecret } from '../secrets/index.js';
import { hashPassphrase, verifyPassphrase, type ScryptParams } from './passphrase-hash.js';
import { LockError } from './errors.js';
import { words, type Words } from '../words/words.shared.js';

export interface Unlocker {
  /** What the lock screen asks for: the local passphrase (solo profiles) or the operator's password (team). */
  readonly method: 'passphrase' | 'password';
  /** True while no secret has been chosen yet (solo, first use); a team sign-in never needs one. */
  needsSetup(): Promise<boolean>;
  /** Chooses the secret on first use; refuses when one is already set. */
  setUp(secret: string): Promise<void>;
  /**
   * Whether `secret` is right. Throws only when the check cannot run (keychain or database unreachable).
   * `remember`: the operator asked to be remembered on this computer (team sign-in only; solo ignores it).
   */
  verify(secret: string, opts?: { remember?: boolean }): Promise<boolean>;
  /** Who signs in (team: the operator's login), shown as "Sign in as LOGIN"; absent for the solo passphrase. */
  readonly login?: string;
  /**
   * Why the last sign-in was refused for a reason other than a wrong secret (team: the operator is
   * disabled, the database cannot be reached), or null. The lock screen shows it: a sign-in the app made
   * by itself (a remembered password at start) has nobody else to tell.
   */
  problem?(): Words | null;
}

export const MIN_PASSPHRASE = 8;
export const MAX_PASSPHRASE = 1024;

/** The solo profiles' unlocker: a passphrase whose scrypt hash (never the passphrase) is in `store`. */
export class PassphraseUnlocker implements Unlocker {
  readonly method = 'passphrase' as const;
  constructor(
    private readonly store: AppSecret,
    private readonly params?: ScryptParams,
  ) {}

  async needsSetup(): Promise<boolean> {
    return (await this.store.get()) === null;
  }

  async setUp(secret: string): Promise<void> {
    if (typeof secret !== 'string' || secret.length < MIN_PASSPHRASE) {
      throw new LockError('validation', words('lock.passphraseTooShort', { min: MIN_PASSPHRASE }), 'passphrase');
    }
    if (secret.length > MAX_PASSPHRASE) {
      throw new LockError('validation', words('lock.passphraseTooLong', { max: MAX_PASSPHRASE }), 'passphrase');
    }
    if (!(await this.needsSetup())) {
      throw new LockError('conflict', words('lock.passphraseAlreadySet'), 'passphrase');
    }
    await this.store.set(await hashPassphrase(secret, this.params));
  }

  async verify(secret: string): Promise<boolean> {
    const stored = await this.store.get();
    if (stored === null) return false;
    return await verifyPassphrase(secret, stored);
  }
}
