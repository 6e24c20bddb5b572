// One secret of the app itself rather than of a profile's merchant keys (e.g. the idle lock's passphrase
// hash). Kept apart from SecretStore's names on purpose: rebinding a profile's keys to another origin
// deletes every SecretName, and that must never delete the way back into a locked app.
import { AsyncEntry } from '@napi-rs/keyring';
import { keychainService, SecretStoreUnavailableError } from './secret-store.js';
import { messageOf } from '../errors.shared.js';

export interface AppSecret {
  get(): Promise<string | null>;
  set(value: string): Promise<void>;
  delete(): Promise<void>;
  readonly kind: 'keychain' | 'memory';
}

/** The OS keychain entry "<service>" / "app:<name>" (the "app:" prefix keeps it apart from profile accounts). */
export class KeyringAppSecret implements AppSecret {
  readonly kind = 'keychain' as const;
  constructor(
    readonly name: string,
    private readonly service: string = keychainService(),
  ) {}

  async #with<T>(use: (entry: AsyncEntry) => Promise<T>): Promise<T> {
    try {
      const entry = new AsyncEntry(this.service, `app:${this.name}`, { linux: { store: 'secret-service' } });
      return await use(entry);
    } catch (e) {
      // The keyring's messages describe the platform store, never the value.
      throw new SecretStoreUnavailableError(
        `the OS keychain is not available, so the ${this.name} cannot be stored safely: ${messageOf(e)}`,
      );
    }
  }

  get(): Promise<string | null> {
    return this.#with((e) => e.getPassword());
  }
  async set(value: string): Promise<void> {
    await this.#with((e) => e.setPassword(value));
  }
  async delete(): Promise<void> {
    await this.#with((e) => e.deleteCredential());
  }
}

/** Tests: held in memory only. */
export class MemoryAppSecret implements AppSecret {
  readonly kind = 'memory' as const;
  #value: string | null = null;
  async get(): Promise<string | null> {
    return this.#value;
  }
  async set(value: string): Promise<void> {
    this.#value = value;
  }
  async delete(): Promise<void> {
    this.#value = null;
  }
}
