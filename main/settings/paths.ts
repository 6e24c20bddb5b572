import path from 'node:path';

/** Where things live inside the app data folder. The app, the CLI and tests all use this. */
export interface DataPaths {
  dataDir: string;
  /** The SQLite database (settings, cache, collections). */
  db: string;
  /** pino file logs. */
  logs: string;
  /** The imported service public key (a copy; the original may be anywhere). */
  serviceKey: string;
  /** The embedded profile's sandbox state. */
  sandbox: string;
}

export function dataPaths(dataDir: string): DataPaths {
  const dir = path.resolve(dataDir);
  return {
    dataDir: dir,
    db: path.join(dir, 'merchant-desk.sqlite'),
    logs: path.join(dir, 'logs'),
    serviceKey: path.join(dir, 'service-public-key.pem'),
    sandbox: path.join(dir, 'sandbox'),
  };
}
