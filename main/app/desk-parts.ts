// The parts of a desk the operations and queries are bound to (desk-operations.ts, desk-queries.ts): the
// Core as composeCore builds it, named here member by member so the binding does not import the Core it
// is part of. Every member is read at call time: a profile switch replaces the workspace under them.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../store/sqlite/connection.js';
import type { ChargeService } from '../collections/charge/service.js';
import type { NewEvent } from '../collections/event-rules.js';
import type { Ledger } from '../collections/ledger.js';
import type { SecretStore } from '../secrets/index.js';
import type { Profile, Settings, SettingsPatch, VerificationKeys } from '../settings/index.js';
import type { Poller } from '../poller/index.js';
import type { IdleLock } from '../lock/index.js';
import type { TeamSession } from '../team/session.js';
import type { TeamFirstRecord, TeamFirstWhat } from '../team/record.js';
import type { AppEventBus } from './event-bus.js';
import type { AppStatus } from './status.js';
import type { EmbeddedSandbox } from './workspace.js';
import type { MainConfirm, OpenPathChooser, SavePathChooser, ShellKind } from './shell-offers.js';

export interface DeskParts {
  readonly version: string;
  readonly dataDir: string;
  readonly shell: ShellKind;
  /** The active profile's database. */
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The process's ledger (composeLedger): the operations store their events through it. */
  readonly ledger: Ledger;
  readonly events: AppEventBus;
  readonly poller: Poller | null;
  readonly lock: IdleLock;
  settings(): Settings;
  secrets(): SecretStore;
  verificationKeys(): VerificationKeys;
  charges(): ChargeService;
  appStatus(): AppStatus;
  ready(): Promise<void>;
  reconnect(): Promise<void>;
  switchProfile(profile: Profile, patch?: SettingsPatch): Promise<void>;
  reopenWorkspace(): Promise<void>;
  embedded(): EmbeddedSandbox | null;
  callbackReceiverUrl(): string | null;
  team(): TeamSession | null;
  recordTeamFirst(evs: readonly NewEvent[], what: TeamFirstWhat): Promise<TeamFirstRecord>;
  onClose(fn: () => void | Promise<void>): void;
  /** Set by the shell after composeCore; null where it has no such dialog. */
  readonly chooseOpenPath: OpenPathChooser | null;
  readonly chooseSavePath: SavePathChooser | null;
  readonly confirm: MainConfirm | null;
}
