// A workspace's connection to its service: the keys (held in memory for the embedded profile, else in
// the OS keychain), the connection loaded from the profile's settings and those keys, and its client. The
// embedded profile's sandbox is started (pointed at the local receiver) before it connects.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import {
  loadConnection,
  loadSettings,
  verificationKeys,
  type Connection,
  type ConnectionFailure,
  type VerificationKeys,
} from '../settings/index.js';
import { secretStoreFor, type MemorySecretStore, type SecretStore } from '../secrets/index.js';
import { createServiceClient } from '../service/client.js';
import type { ServiceClient } from '../service/types.js';
import type { AppStatus } from './status.js';
import type { EmbeddedSandboxRunner } from './embedded-sandbox.js';

export interface ServiceConnection {
  /** (Re)connects with the profile's current settings and keys; a failure is kept, and logged, not thrown. */
  connect(): Promise<void>;
  /** The connection, or its failure; null before the first attempt. */
  current(): Connection | ConnectionFailure | null;
  client(): ServiceClient | null;
  keys(): VerificationKeys;
  secrets(): SecretStore;
  keychain(): AppStatus['keychain'];
}

export function serviceConnection(o: {
  db: Db;
  clock: Clock;
  logger: Logger;
  memory: MemorySecretStore;
  embedded: EmbeddedSandboxRunner;
  /** Runs before each connection (the local receiver, which the embedded sandbox posts to). */
  beforeConnect(): Promise<void>;
  /** Where the embedded sandbox posts its callbacks. */
  receiverUrl(): string | null;
}): ServiceConnection {
  const { db, logger, memory, embedded } = o;
  let conn: Connection | ConnectionFailure | null = null;
  let keychain: AppStatus['keychain'] = 'memory';
  let secrets: SecretStore = memory;

  async function connect(): Promise<void> {
    const profile = loadSettings(db).profile;
    await o.beforeConnect();
    if (profile === 'embedded') {
      await embedded.ensure(o.receiverUrl());
      secrets = memory;
      keychain = 'memory';
    } else {
      secrets = secretStoreFor(profile);
      const probe = await secrets.probe();
      keychain = probe.available ? 'available' : 'unavailable';
    }
    const running = embedded.running();
    conn = await loadConnection({
      db,
      secrets,
      createClient: (c) => createServiceClient({ ...c, clock: o.clock }),
      logger,
      ...(profile === 'embedded' && running
        ? { override: { baseUrl: running.baseUrl, servicePublicKeyPath: running.servicePublicKeyPath } }
        : {}),
    });
    if (!conn.ok)
      logger.warn({ kind: conn.error.kind, field: conn.error.field }, `not connected: ${conn.error.message}`);
  }

  return {
    connect,
    current: () => conn,
    client: () => (conn?.ok ? conn.client : null),
    keys: () => verificationKeys(conn),
    secrets: () => secrets,
    keychain: () => keychain,
  };
}
