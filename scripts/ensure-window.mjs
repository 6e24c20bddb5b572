// `npm start` needs a window: Electron's binary, or else a Chromium for the Chromium shell. On a fresh
// Debian/Ubuntu machine where we are root, install Chromium the same way `npm test` does; elsewhere say
// what to install. Never fails the start when something usable is present.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const electronPathFile = path.join(root, 'node_modules', 'electron', 'path.txt');
const hasElectron =
  fs.existsSync(electronPathFile) &&
  fs.existsSync(path.join(root, 'node_modules', 'electron', 'dist', fs.readFileSync(electronPathFile, 'utf8').trim()));
const chromiumCandidates = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];
const hasChromium = chromiumCandidates.some((p) => p && fs.existsSync(p));

if (hasElectron || hasChromium || process.platform !== 'linux') process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
if (isRoot && hasApt) {
  console.error('Merchant Desk: no Electron binary and no Chromium here; installing chromium (apt-get)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install =
    update.status === 0 &&
    spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
  if (install && install.status === 0) process.exit(0);
}
console.error(
  'Merchant Desk needs a window: install Chromium (e.g. "sudo apt-get install chromium") or set CHROMIUM_PATH.',
);
process.exit(1);
