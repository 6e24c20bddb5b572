// Opening a data folder from the CLI: the same database file the app uses.
import fs from 'node:fs';
import { openDatabase, type Db } from '../store/db.js';
import { dataPaths } from './paths.js';

/** Opens <dataDir>/merchant-desk.sqlite, creating the folder (owner-only) when it does not exist. */
export function openDataFolder(dataDir: string): Db {
  const paths = dataPaths(dataDir);
  fs.mkdirSync(paths.dataDir, { recursive: true, mode: 0o700 });
  return openDatabase(paths.db);
}
