// What a CLI command works on: the active profile's database in the data folder (the same one the app
// uses), its settings, the clock, the ledger every event it stores goes through (composed here, the CLI's
// composition root, as composeCore composes the app's: main/app/ledger.ts), and, when the command talks to
// the service, the connection (client and keys from the keychain, bound to the origin they were entered
// for). Every command that reads or writes a data folder opens it here and nowhere else; the database is
// closed whatever the command does.
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { createLogger } from '../log/logger.js';
import type { Db } from '../store/sqlite/connection.js';
import fs from 'node:fs';
import { openDataFolder } from '../settings/data-folder.js';
import { dataPaths } from '../settings/paths.js';
import { readActiveProfile } from '../settings/profile-database.js';
import type { Profile } from '../settings/settings.js';
import { loadSettings, type Settings } from '../settings/settings.js';
import { loadConnection } from '../settings/connection.js';
import { secretStoreFor } from '../secrets/index.js';
import type { CliContext } from './command.js';
import { composeLedger } from '../app/ledger.js';
import type { Ledger } from '../collections/ledger.js';
import type { Reconciler } from '../reconcile/incremental.js';

export interface CliWorkspace {
  dataDir: string;
  db: Db;
  settings: Settings;
  clock: Clock;
  /** What every event the command stores goes through (import-callbacks), reconciled as it is stored. */
  ledger: Ledger;
  /** The reconciler under the ledger: what no event drives (reconcile). */
  reconciler: Reconciler;
  /** The data folder's log (opened on first use). */
  logger(): Logger;
  /** The service connection of the active profile, from its settings and keys. */
  connection(): ReturnType<typeof loadConnection>;
}

/**
 * The profile a command would work on, read without creating or changing anything (a command refuses what
 * the profile cannot do before it opens the folder). Null when an old single-file database is there: which
 * profile it belongs to is known once it is adopted, which opening the folder does.
 */
export function activeProfileBeforeOpening(ctx: CliContext): Profile | null {
  if (fs.existsSync(dataPaths(ctx.dataDir).legacyDb)) return null;
  return readActiveProfile(ctx.dataDir);
}

/** Runs `fn` on the data folder's active profile; the database is closed afterwards. */
export async function withWorkspace<T>(ctx: CliContext, fn: (ws: CliWorkspace) => Promise<T>): Promise<T> {
  const db = openDataFolder(ctx.dataDir);
  try {
    const settings = loadSettings(db);
    let logger: Logger | null = null;
    const log = () => (logger ??= createLogger({ dataDir: ctx.dataDir }));
    const { ledger, reconciler } = composeLedger();
    return await fn({
      dataDir: ctx.dataDir,
      db,
      settings,
      clock: systemClock,
      ledger,
      reconciler,
      logger: log,
      connection: () => loadConnection({ db, secrets: secretStoreFor(settings.profile), logger: log() }),
    });
  } finally {
    db.close();
  }
}
