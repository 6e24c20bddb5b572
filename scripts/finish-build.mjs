// After tsc: the sandboxed Electron preload must be CommonJS and a single file (a sandboxed preload
// cannot require relative modules; it imports only types). The package is "type": "module", so mark
// the preload output folder as CommonJS.
import fs from 'node:fs';
fs.mkdirSync('dist/preload', { recursive: true });
fs.writeFileSync('dist/preload/package.json', JSON.stringify({ type: 'commonjs' }) + '\n');
