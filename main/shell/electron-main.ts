// Electron's entry (package.json "main" -> dist/main/shell/electron-main.js). `merchant-desk start`
// runs it with `--data-dir DIR` when the Electron binary is present.
// No top-level await here: Electron emits 'ready' only once this ESM entry has finished evaluating, so
// awaiting app.whenReady() at the top level would hang. runElectronApp registers the app:// scheme
// synchronously (it must happen before 'ready') and then waits for 'ready' itself.
import { defaultDataDir } from '../settings/paths.js';
import { composeCore } from '../app/core.js';
import { runElectronApp } from './electron.js';
import { messageOf } from '../errors.shared.js';

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

runElectronApp({
  dataDir: argValue('--data-dir') ?? defaultDataDir(),
  compose: (dataDir, paymentWindow) => composeCore({ dataDir, shell: 'electron', background: true, paymentWindow }),
}).catch((e: unknown) => {
  console.error(`merchant-desk: ${messageOf(e)}`);
  process.exit(1);
});
