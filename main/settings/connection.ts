// Builds the service client from the data folder's settings and the keychain. The app (each profile's
// workspace) and the CLI both use this, so they agree on what "connected" means, and both take the keys
// that check what the service signs from the connection (verificationKeys), never from elsewhere.
import type { Logger } from 'pino';
import type { Db } from '../store/sqlite/connection.js';
import type { MerchantKeys, ServiceClient } from '../service/types.js';
import { SecretStoreUnavailableError, type SecretStore } from '../secrets/secret-store.js';
import { loadSettings, type Profile, type Settings } from './settings.js';
import { createServiceClient } from '../service/client.js';
import { ValidationError } from '../service/errors.js';
import { checkKeyBinding, originOf } from './key-binding.js';
import { currentServicePublicKey } from './service-key.js';
import { teamFingerprintKey } from '../collections/charge/fingerprint.js';

export interface ClientFactoryOptions {
  baseUrl: string;
  keys: () => MerchantKeys | Promise<MerchantKeys>;
  logger?: Logger;
}
export type ClientFactory = (opts: ClientFactoryOptions) => ServiceClient;

export interface Connection {
  ok: true;
  client: ServiceClient;
  profile: Profile;
  baseUrl: string;
  settings: Settings;
  /** The merchant signing key (HMAC of callbacks and redirects), or null when not set. */
  signingKey: string | null;
  /** Absolute path of the service public key PEM, or null when none is imported. */
  servicePublicKeyPath: string | null;
  /**
   * The key of the card fingerprints a team's repeat-charge question compares, derived from the secret
   * key (collections/charge/fingerprint.ts): the same on every desk of the merchant, never stored.
   */
  fingerprintKey: Buffer;
}

export type ConnectionErrorKind = 'not_configured' | 'keychain_unavailable' | 'validation';

export interface ConnectionFailure {
  ok: false;
  profile: Profile;
  settings: Settings;
  error: { kind: ConnectionErrorKind; message: string; field?: string };
  /**
   * The signing key when it could be read even though there is no client (verifying a callback needs
   * no client): null when not set or the keychain is unavailable.
   */
  signingKey: string | null;
  servicePublicKeyPath: string | null;
}

/** The keys that check what the service signs (callback and redirect signatures) and encrypt cards. */
export interface VerificationKeys {
  /** The merchant signing key (HMAC), or null. */
  signingKey: string | null;
  /** The service's RSA public key (PEM), or null when none is imported. */
  servicePublicKey: string | null;
}

/**
 * The one way to the signing key and the service public key, for the charge service, the callback
 * receiver, callback imports and the CLI: from a profile's connection (ok or not), read when it was loaded.
 */
export function verificationKeys(
  conn: Pick<Connection | ConnectionFailure, 'signingKey' | 'servicePublicKeyPath'> | null,
): VerificationKeys {
  return {
    signingKey: conn?.signingKey ?? null,
    servicePublicKey: currentServicePublicKey(conn?.servicePublicKeyPath ?? null)?.pem ?? null,
  };
}

export interface LoadConnectionOptions {
  db: Db;
  /** The profile's store (embedded: memory holding the sandbox keys; sandbox/live: the keychain). */
  secrets: SecretStore;
  /** Default: createServiceClient (main/service/client.ts). */
  createClient?: ClientFactory;
  /** The embedded profile passes its sandbox's URL (and key path) here; settings are not changed. */
  override?: { baseUrl?: string; servicePublicKeyPath?: string };
  logger?: Logger;
}

/**
 * The client for the configured profile, or why there is none (with the setting to fix). Reads the
 * keys once; call again after settings or keys change.
 */
export async function loadConnection(opts: LoadConnectionOptions): Promise<Connection | ConnectionFailure> {
  const settings = loadSettings(opts.db);
  const profile = settings.profile;
  const servicePublicKeyPath = opts.override?.servicePublicKeyPath ?? settings.servicePublicKeyPath;
  let signingKey: string | null = null;
  const fail = (kind: ConnectionErrorKind, message: string, field?: string): ConnectionFailure => ({
    ok: false,
    profile,
    settings,
    error: { kind, message, ...(field ? { field } : {}) },
    signingKey,
    servicePublicKeyPath,
  });
  const baseUrl = opts.override?.baseUrl ?? settings.baseUrl;
  if (!baseUrl || !isUrl(baseUrl)) {
    // No client without a URL, but callbacks can still be verified with the signing key.
    signingKey = await opts.secrets.get('signing-key').catch((e: unknown) => {
      if (e instanceof SecretStoreUnavailableError) return null;
      throw e;
    });
    if (baseUrl) return fail('validation', `baseUrl is not a URL: ${baseUrl}`, 'baseUrl');
    return fail(
      'not_configured',
      profile === 'embedded'
        ? 'the embedded sandbox is not running yet'
        : `no base URL for the ${profile} profile; set it in Settings or run "merchant-desk connect"`,
      'baseUrl',
    );
  }
  let publicKey: string | null;
  let secretKey: string | null;
  let bound: Awaited<ReturnType<typeof checkKeyBinding>>;
  try {
    [publicKey, secretKey, signingKey] = await Promise.all([
      opts.secrets.get('public-key'),
      opts.secrets.get('secret-key'),
      opts.secrets.get('signing-key'),
    ]);
    bound = await checkKeyBinding(opts.secrets, baseUrl, Boolean(publicKey || secretKey || signingKey));
  } catch (e) {
    if (e instanceof SecretStoreUnavailableError) return fail('keychain_unavailable', e.message);
    throw e;
  }
  // Keys saved for another host are never sent anywhere: the client is not even built.
  if (!bound.ok) {
    return fail(
      'not_configured',
      `the keys were saved for ${bound.boundTo}; enter the keys again for ${bound.origin} in Settings`,
      'publicKey',
    );
  }
  if (!publicKey) return fail('not_configured', 'the public key is not set; enter it in Settings', 'publicKey');
  if (!secretKey) return fail('not_configured', 'the secret key is not set; enter it in Settings', 'secretKey');
  const keys: MerchantKeys = { publicKey, secretKey };
  const factory: ClientFactory = opts.createClient ?? createServiceClient;
  let client: ServiceClient;
  try {
    client = factory({ baseUrl: baseUrl, keys: () => keys, ...(opts.logger ? { logger: opts.logger } : {}) });
  } catch (e) {
    if (e instanceof ValidationError) return fail('validation', e.message, 'baseUrl');
    throw e;
  }
  return {
    ok: true,
    client,
    profile,
    baseUrl: baseUrl,
    settings,
    signingKey,
    servicePublicKeyPath,
    fingerprintKey: teamFingerprintKey(secretKey),
  };
}

function isUrl(s: string): boolean {
  try {
    originOf(s);
    return true;
  } catch {
    return false;
  }
}
