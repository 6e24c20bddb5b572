// Opening a data folder from the CLI: the database of the active profile, the same one the app uses.
import type { Db } from '../store/sqlite/connection.js';
import { createLogger } from '../log/logger.js';
import { dataPaths } from './paths.js';
import { openActiveProfileDatabase } from './profile-database.js';
import fs from 'node:fs';

/**
 * Opens the active profile's database (<dataDir>/profiles/<profile>/merchant-desk.sqlite), creating the
 * folder (owner-only) when it does not exist. An old single-file database is adopted first (and logged).
 */
export function openDataFolder(dataDir: string): Db {
  // Log only when there is something to say (an adoption): a logger opens the log file.
  const log = fs.existsSync(dataPaths(dataDir).legacyDb) ? createLogger({ dataDir }) : undefined;
  try {
    return openActiveProfileDatabase(dataDir, log).db;
  } finally {
    log?.flush?.();
  }
}
