// Merchant keys live in the OS keychain (DESIGN.md, Data), behind this interface so every capability can
// be tested with a MemorySecretStore. Names are scoped by profile: service "merchant-desk", account
// "<profile>:<name>". Values are never logged and never part of an error message.
import { AsyncEntry } from '@napi-rs/keyring';
import { DeskError, messageOf } from '../errors.shared.js';

export const SECRET_NAMES = ['public-key', 'secret-key', 'signing-key'] as const;
export type SecretName = (typeof SECRET_NAMES)[number];
export type Profile = 'embedded' | 'sandbox' | 'live' | 'team';

export const KEYCHAIN_SERVICE = 'merchant-desk';

/**
 * The keychain service name: MERCHANT_DESK_KEYCHAIN_SERVICE when set (a second install on one machine,
 * or a test that must not share entries with another running in parallel), else "merchant-desk".
 */
export function keychainService(env: NodeJS.ProcessEnv = process.env): string {
  return env.MERCHANT_DESK_KEYCHAIN_SERVICE || KEYCHAIN_SERVICE;
}

export interface SecretStore {
  get(name: SecretName): Promise<string | null>;
  set(name: SecretName, value: string): Promise<void>;
  delete(name: SecretName): Promise<void>;
  /** Whether the store can be used; `reason` says why not, in words a user can act on. */
  probe(): Promise<{ available: boolean; reason?: string }>;
  /**
   * The origin (scheme://host:port) the keys were saved for, or null when none is recorded. Kept beside
   * the keys (not in the database), so the binding and the secrets it guards live and die together.
   */
  origin(): Promise<string | null>;
  /** Records the origin the keys are for; null forgets it. */
  bindOrigin(origin: string | null): Promise<void>;
  /** 'keychain' persists in the OS keychain; 'memory' is lost when the app quits. */
  readonly kind: 'keychain' | 'memory';
}

/** The keychain cannot be reached (no Secret Service, locked, denied). Never carries a secret. */
export class SecretStoreUnavailableError extends DeskError {
  declare readonly kind: 'keychain_unavailable';
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('keychain_unavailable', message, { ...opts, expose: true });
  }
}

/** A value that cannot be a key (empty, whitespace, too long); names the key, never echoes it. */
export class SecretValueError extends DeskError {
  declare readonly field: SecretName;
  constructor(field: SecretName, reason: string) {
    super('validation', `${field}: ${reason}`, { field, expose: true });
  }
}

export function isSecretName(s: string): s is SecretName {
  return (SECRET_NAMES as readonly string[]).includes(s);
}

function checkName(name: string): asserts name is SecretName {
  if (!isSecretName(name)) throw new Error(`unknown secret name "${name}"; use one of ${SECRET_NAMES.join(', ')}`);
}

/** Keys are single-line printable tokens; anything else is a paste mistake. */
export function checkSecretValue(name: SecretName, value: string): string {
  if (typeof value !== 'string') throw new SecretValueError(name, 'must be text');
  const v = value.trim();
  if (v.length === 0) throw new SecretValueError(name, 'is empty');
  if (v.length > 4096) throw new SecretValueError(name, 'is longer than 4096 characters; check what was pasted');
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(v)) throw new SecretValueError(name, 'contains spaces or control characters');
  return v;
}

/** The keychain account (after "<profile>:") holding the origin the keys were saved for. */
const ORIGIN_ENTRY = 'key-origin';

/** An origin as URL.origin writes it (https://host[:port]); anything else is a programming error. */
function checkOrigin(origin: string): string {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    throw new Error('a key origin must be an http(s) origin');
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.origin !== origin)
    throw new Error('a key origin must be an http(s) origin');
  return origin;
}

/** Keys held only in memory: tests, and the embedded profile (its sandbox keys). */
export class MemorySecretStore implements SecretStore {
  readonly kind = 'memory' as const;
  readonly #values = new Map<SecretName, string>();
  #origin: string | null = null;
  constructor(initial: Partial<Record<SecretName, string | undefined>> = {}) {
    for (const [k, v] of Object.entries(initial)) if (v !== undefined) this.#values.set(k as SecretName, v);
  }
  async origin(): Promise<string | null> {
    return this.#origin;
  }
  async bindOrigin(origin: string | null): Promise<void> {
    this.#origin = origin === null ? null : checkOrigin(origin);
  }
  async get(name: SecretName): Promise<string | null> {
    checkName(name);
    return this.#values.get(name) ?? null;
  }
  async set(name: SecretName, value: string): Promise<void> {
    checkName(name);
    this.#values.set(name, checkSecretValue(name, value));
  }
  async delete(name: SecretName): Promise<void> {
    checkName(name);
    this.#values.delete(name);
  }
  async probe(): Promise<{ available: boolean; reason?: string }> {
    return { available: true };
  }
}

const UNAVAILABLE =
  'the OS keychain is not available, so keys cannot be stored safely' +
  (process.platform === 'linux' ? ' (start a Secret Service such as gnome-keyring and unlock it, then try again)' : '');

/** The OS keychain through @napi-rs/keyring (async API). */
export class KeyringSecretStore implements SecretStore {
  readonly kind = 'keychain' as const;
  constructor(
    readonly profile: Profile,
    private readonly service: string = keychainService(),
  ) {}

  /** The entry for a name; the constructor itself may fail (no Secret Service), so it runs inside `use`. */
  async #with<T>(name: SecretName | 'probe' | typeof ORIGIN_ENTRY, use: (entry: AsyncEntry) => Promise<T>): Promise<T> {
    if (name !== 'probe' && name !== ORIGIN_ENTRY) checkName(name);
    let entry: AsyncEntry;
    try {
      entry = new AsyncEntry(this.service, `${this.profile}:${name}`, { linux: { store: 'secret-service' } });
    } catch (e) {
      throw unavailable(e);
    }
    try {
      return await use(entry);
    } catch (e) {
      throw unavailable(e);
    }
  }

  async get(name: SecretName): Promise<string | null> {
    return this.#with(name, (e) => e.getPassword());
  }
  async set(name: SecretName, value: string): Promise<void> {
    checkName(name);
    const v = checkSecretValue(name, value);
    await this.#with(name, (e) => e.setPassword(v));
  }
  async delete(name: SecretName): Promise<void> {
    await this.#with(name, (e) => e.deleteCredential());
  }
  async origin(): Promise<string | null> {
    return this.#with(ORIGIN_ENTRY, (e) => e.getPassword());
  }
  async bindOrigin(origin: string | null): Promise<void> {
    if (origin === null) await this.#with(ORIGIN_ENTRY, (e) => e.deleteCredential());
    else {
      const o = checkOrigin(origin);
      await this.#with(ORIGIN_ENTRY, (e) => e.setPassword(o));
    }
  }
  async probe(): Promise<{ available: boolean; reason?: string }> {
    // A read of an entry that need not exist: proves the store answers without writing anything.
    try {
      await this.#with('probe', (e) => e.getPassword());
      return { available: true };
    } catch (e) {
      return { available: false, reason: messageOf(e) };
    }
  }
}

function platformMessage(e: unknown): string {
  // The keyring's messages describe the platform store, never the value.
  return messageOf(e);
}

function unavailable(e: unknown): SecretStoreUnavailableError {
  return new SecretStoreUnavailableError(`${UNAVAILABLE}: ${platformMessage(e)}`);
}

/** What the renderer may see: whether each key is set, and the public key masked. */
export interface SecretStatus {
  publicKey: 'set' | 'unset';
  secretKey: 'set' | 'unset';
  signingKey: 'set' | 'unset';
  /** e.g. "pk_t…9f3a" (first 4 and last 4 characters), null when unset. */
  maskedPublicKey: string | null;
  store: 'keychain' | 'memory';
  available: boolean;
  reason?: string;
}

export function maskKey(key: string): string {
  if (key.length <= 8) return '•'.repeat(key.length);
  return `${key.slice(0, 4)}…${key.slice(-4)}`;
}

export async function secretStatus(store: SecretStore): Promise<SecretStatus> {
  const probe = await store.probe();
  if (!probe.available) {
    return {
      publicKey: 'unset',
      secretKey: 'unset',
      signingKey: 'unset',
      maskedPublicKey: null,
      store: store.kind,
      available: false,
      ...(probe.reason ? { reason: probe.reason } : {}),
    };
  }
  const [pk, sk, gk] = await Promise.all([store.get('public-key'), store.get('secret-key'), store.get('signing-key')]);
  return {
    publicKey: pk ? 'set' : 'unset',
    secretKey: sk ? 'set' : 'unset',
    signingKey: gk ? 'set' : 'unset',
    maskedPublicKey: pk ? maskKey(pk) : null,
    store: store.kind,
    available: true,
  };
}

/**
 * The store for a profile: the embedded profile keeps its sandbox keys in memory; sandbox and live use
 * the keychain only (never a plain-text fallback: if it is unavailable, storing fails with a clear error).
 */
export function secretStoreFor(profile: Profile, memory?: MemorySecretStore): SecretStore {
  if (profile === 'embedded') return memory ?? new MemorySecretStore();
  return new KeyringSecretStore(profile);
}
