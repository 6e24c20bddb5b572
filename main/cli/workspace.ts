// What a CLI command works on: the active profile's database in the data folder (the same one the app
// uses), its settings, the clock, and, when the command talks to the service, the connection (client and
// keys from the keychain, bound to the origin they were entered for). Every command that reads or writes
// a data folder opens it here and nowhere else; the database is closed whatever the command does.
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { createLogger } from '../log/logger.js';
import type { Db } from '../store/sqlite/connection.js';
import { openDataFolder } from '../settings/data-folder.js';
import { loadSettings, type Settings } from '../settings/settings.js';
import { loadConnection } from '../settings/connection.js';
import { secretStoreFor } from '../secrets/index.js';
import type { CliContext } from './command.js';

export interface CliWorkspace {
  dataDir: string;
  db: Db;
  settings: Settings;
  clock: Clock;
  /** The data folder's log (opened on first use). */
  logger(): Logger;
  /** The service connection of the active profile, from its settings and keys. */
  connection(): ReturnType<typeof loadConnection>;
}

/** Runs `fn` on the data folder's active profile; the database is closed afterwards. */
export async function withWorkspace<T>(ctx: CliContext, fn: (ws: CliWorkspace) => Promise<T>): Promise<T> {
  const db = openDataFolder(ctx.dataDir);
  try {
    const settings = loadSettings(db);
    let logger: Logger | null = null;
    const log = () => (logger ??= createLogger({ dataDir: ctx.dataDir }));
    return await fn({
      dataDir: ctx.dataDir,
      db,
      settings,
      clock: systemClock,
      logger: log,
      connection: () => loadConnection({ db, secrets: secretStoreFor(settings.profile), logger: log() }),
    });
  } finally {
    db.close();
  }
}
