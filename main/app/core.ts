// The Core: every capability the shells, IPC handlers and CLI need, built once by the composition
// root (main/app/compose.ts) and handed to whichever shell runs. Handlers receive it whole:
//   export const fooHandlers = (core: Core): HandlersFor<typeof fooChannels> => ({ ... })
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';
import type { ServiceClient } from '../service/types.js';
import type { PaymentWindowOpener } from '../collections/payment-window.js';
import type { SecretStore, Profile } from '../secrets/index.js';
import type { DeskEmitter } from './events.js';
import type { AppStatus } from '../ipc/contract/app.js';

export type { Profile } from '../secrets/index.js';
export type ShellKind = 'electron' | 'chromium' | 'none';

/** The settings a Core reads; the full store and its zod schema live in main/settings. */
export interface CoreSettings {
  profile: Profile;
  baseUrl: string | null;
  redirectUrl: string;
  operator: string;
  servicePublicKeyPath: string | null;
}

/** The local sandbox of the embedded profile, when it runs in this process. */
export interface EmbeddedSandbox {
  baseUrl: string;
  /** The sandbox's test controls (same operations as its /__sandbox HTTP routes). */
  controls: unknown;
  servicePublicKeyPem: string;
}

/** What Core needs of the poller (main/poller implements it). */
export interface CorePoller {
  start(): void;
  stop(): Promise<void>;
  refresh(kind?: 'balances' | 'providers'): Promise<unknown>;
}

export interface Core {
  readonly version: string;
  readonly dataDir: string;
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Keys for the current profile (the OS keychain; memory for the embedded profile). */
  secrets(): SecretStore;
  /** Current non-secret settings (read fresh each call: the Settings screen changes them). */
  settings(): CoreSettings;
  /**
   * The service client for the current profile, base URL and keys, or null when the connection is not
   * configured (say so and point at Settings). Rebuilt when settings or keys change.
   */
  getClient(): ServiceClient | null;
  /** The service's RSA public key (PEM) for card_cipher and signature checks, or null when none is imported. */
  servicePublicKeyPem(): string | null;
  /** Balances and payment options in the background; null in one-shot CLI commands. */
  readonly poller: CorePoller | null;
  /** Profile, connection state and last successful poll, for the status bar. */
  appStatus(): Promise<AppStatus>;
  /** Set by the running shell (Electron BrowserWindow, or a Chromium browser context); null in the CLI. */
  paymentWindow: PaymentWindowOpener | null;
  shell: ShellKind;
  /** Push DeskEvents to the renderer. */
  readonly events: DeskEmitter;
  /** The embedded sandbox, when the embedded profile started one. */
  readonly embedded: EmbeddedSandbox | null;
  /** Runs on close(), last registered first. */
  onClose(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}
