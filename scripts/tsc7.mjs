// Runs TypeScript 7 (the native compiler) for type-checking and building main, preload and tests.
// The root `typescript` package stays on 6.x because typescript-eslint and Vite's tooling load its JS API,
// which TypeScript 7 no longer ships.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
// bin/tsc is not in the package's "exports"; locate it from package.json (which is exported).
const tsc = require.resolve('typescript-7/package.json').replace(/package\.json$/, 'bin/tsc');
const r = spawnSync(process.execPath, [tsc, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
