// The Core: every capability the shells, IPC handlers and CLI need, built once by the composition
// root (main/app/compose.ts) and handed to whichever shell runs. Handlers receive it whole:
//   export const fooHandlers = (core: Core): HandlersFor<typeof fooChannels> => ({ ... })
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';
import type { ServiceClient } from '../service/types.js';
import type { PaymentWindowOpener } from '../collections/payment-window.js';
import type { SecretStore } from '../secrets/index.js';
import type { Profile, Settings, SettingsPatch } from '../settings/index.js';
import type { Poller } from '../poller/index.js';
import type { DeskEmitter } from './events.js';
import type { AppStatus } from '../ipc/contract/app.js';
import type { IdleLock } from '../lock/index.js';

/** A native open dialog: the chosen file, or null when the person cancelled. */
export type OpenPathChooser = (o: { title: string; filters: { name: string; extensions: string[] }[] }) => Promise<string | null>;

/** Asks the person at the machine, in the main process (a native dialog), never through the renderer. */
export type MainConfirm = (o: { title: string; message: string; detail: string }) => Promise<boolean>;

/** A native save dialog: the chosen path, or null when the person cancelled. */
export type SavePathChooser = (o: { title: string; defaultName: string; filters: { name: string; extensions: string[] }[] }) => Promise<string | null>;

export type { Profile } from '../settings/index.js';
export type ShellKind = 'electron' | 'chromium' | 'none';

/** The local sandbox of the embedded profile, when it runs in this process. */
export interface EmbeddedSandbox {
  baseUrl: string;
  /** The sandbox's typed test controls (same operations as its /__sandbox HTTP routes). */
  controls: unknown;
  servicePublicKeyPath: string;
}

export interface Core {
  readonly version: string;
  readonly dataDir: string;
  /** The active profile's database: read it at call time (it changes when the profile is switched). */
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Current non-secret settings (read fresh each call: the Settings screen changes them). */
  settings(): Settings;
  /** Keys of the current profile: memory for the embedded profile (its sandbox's keys), else the OS keychain. */
  secrets(): SecretStore;
  /**
   * The service client for the current profile, base URL and keys, or null when the connection is not
   * configured (connectionProblem() says why). Call reconnect() after changing settings or keys.
   */
  getClient(): ServiceClient | null;
  /** Why there is no client (names the setting to fix), or null when connected. */
  connectionProblem(): { kind: string; message: string; field?: string } | null;
  /** Re-reads settings and keys, rebuilds the client (starting the embedded sandbox if the profile needs it). */
  reconnect(): Promise<void>;
  /**
   * Makes `profile` the active workspace: validates its settings with `patch` applied (nothing changes
   * when they are invalid), closes the current profile's poller, receiver, embedded sandbox and database,
   * composes them on the new profile's own database, records it as active and emits 'app.profileChanged'.
   * The same profile: just applies `patch`.
   */
  switchProfile(profile: Profile, patch?: SettingsPatch): Promise<void>;
  /** The merchant signing key (callback/redirect HMAC), or null. */
  signingKey(): string | null;
  /** The service's RSA public key (PEM) for card_cipher and RSA signature checks, or null when none is imported. */
  servicePublicKeyPem(): string | null;
  /** Balances and payment options in the background (the active profile's); null when polling is off (one-shot CLI). */
  readonly poller: Poller | null;
  /** Profile, connection state and last successful poll, for the status bar. */
  appStatus(): Promise<AppStatus>;
  /**
   * Settles (never rejects) once the active workspace's first connection attempt is over: the embedded
   * sandbox is up and the poller runs, or the failure is in appStatus(). Work that needs the service
   * (a charge, a refresh) waits on it; reads of the cache never do.
   */
  ready(): Promise<void>;
  /** Set by the running shell (Electron BrowserWindow, or a Chromium browser context); null in the CLI. */
  paymentWindow: PaymentWindowOpener | null;
  /** Set by a shell that has a native save dialog (Electron); null: exports go to <data folder>/exports. */
  chooseSavePath: SavePathChooser | null;
  /** Set by a shell that has a native open dialog (Electron); null: imports are chosen from <data folder>/imports. */
  chooseOpenPath: OpenPathChooser | null;
  /** Set by a shell that can ask the user in the main process (Electron dialog); null means refuse. */
  confirm: MainConfirm | null;
  shell: ShellKind;
  /** Push DeskEvents to the renderer. */
  readonly events: DeskEmitter;
  /** The embedded sandbox, when the embedded profile started one. */
  embedded(): EmbeddedSandbox | null;
  /** Where the local callback receiver listens, when it runs. */
  callbackReceiverUrl(): string | null;
  /** Locks the app after the idle time; the shells pass it to createDispatcher as the IPC gate. */
  readonly lock: IdleLock;
  /** Runs on close(), last registered first. */
  onClose(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}
