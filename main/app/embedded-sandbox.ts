// The embedded profile's sandbox, started in this process by its workspace: one start at a time (a
// reconnect while it starts joins that start), its keys put into the workspace's memory store, its
// callbacks sent to the local receiver wherever that listens now.
import fs from 'node:fs';
import type { Logger } from 'pino';
import type { MemorySecretStore } from '../secrets/index.js';
import { startSandbox } from '../../sandbox/index.js';
import { AppError } from './errors.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface SandboxOptions {
  port?: number;
  timeScale?: number;
  /** Fault hook for tests: awaited before the sandbox starts (holds the 'starting' state open). */
  beforeStart?: () => Promise<void>;
}

export interface EmbeddedSandboxRunner {
  /** The running sandbox, or null before it started. */
  running(): Sandbox | null;
  /** Starts it if needed, and points its callbacks at `callbackUrl` (null: the receiver is off). */
  ensure(callbackUrl: string | null): Promise<void>;
  /** Stops it (a start in flight when the workspace began closing has stopped its own). */
  close(): Promise<void>;
}

export function embeddedSandboxRunner(o: {
  /** <dataDir>/sandbox: the sandbox keeps its keys and state there across restarts. */
  stateDir: string;
  options: SandboxOptions | undefined;
  /** The workspace's key store for the embedded profile. */
  memory: MemorySecretStore;
  logger: Logger;
  /** Whether the workspace is closing: a start that finishes then stops its own sandbox. */
  closing: () => boolean;
}): EmbeddedSandboxRunner {
  let sandbox: Sandbox | null = null;
  let starting: Promise<Sandbox> | null = null;

  return {
    running: () => sandbox,
    async ensure(callbackUrl) {
      if (sandbox) {
        // The receiver may have moved (host/port changed) or been turned off.
        sandbox.controls.config({ callback_url: callbackUrl });
        return;
      }
      starting ??= (async () => {
        await o.options?.beforeStart?.();
        fs.mkdirSync(o.stateDir, { recursive: true });
        return await startSandbox({
          stateDir: o.stateDir,
          port: o.options?.port ?? 0,
          host: '127.0.0.1',
          ...(callbackUrl ? { callbackUrl } : {}),
          ...(o.options?.timeScale ? { timeScale: o.options.timeScale } : {}),
        });
      })().finally(() => (starting = null));
      const started = await starting;
      if (o.closing()) {
        // The workspace was closed while the sandbox was starting: stop it rather than leak it.
        await started.close();
        throw new AppError('conflict', 'the workspace was closed while its sandbox was starting');
      }
      if (sandbox) return; // another caller joined the same start and finished it
      sandbox = started;
      sandbox.controls.config({ callback_url: callbackUrl });
      await o.memory.set('public-key', sandbox.publicKey);
      await o.memory.set('secret-key', sandbox.secretKey);
      await o.memory.set('signing-key', sandbox.signingKey);
      await o.memory.bindOrigin(new URL(sandbox.baseUrl).origin);
      o.logger.info({ baseUrl: sandbox.baseUrl }, 'embedded sandbox started');
    },
    async close() {
      await sandbox?.close();
    },
  };
}
