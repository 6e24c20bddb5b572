// Electron's entry (package.json "main" -> dist/main/shell/electron-main.js). `merchant-desk start`
// runs it with `--data-dir DIR` when the Electron binary is present.
import { defaultDataDir } from '../cli/data-dir.js';
import { composeCore } from '../app/compose.js';
import { runElectronApp } from './electron.js';

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

await runElectronApp({
  dataDir: argValue('--data-dir') ?? defaultDataDir(),
  compose: (dataDir) => composeCore({ dataDir, shell: 'electron' }),
});
