import os from 'node:os';
import path from 'node:path';

/** The per-user app data folder, as Electron's app.getPath('userData') would pick it. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MERCHANT_DESK_DATA_DIR) return env.MERCHANT_DESK_DATA_DIR;
  const home = env.HOME ?? os.homedir();
  switch (process.platform) {
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Merchant Desk');
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Merchant Desk');
    default:
      return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'merchant-desk');
  }
}
