// Where the app's own files are, from source (tsx, vitest) or from dist/ alike.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder holding the app's package.json (the repository root, or the packaged app's root). */
export function appRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg)) {
      try {
        if ((JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string }).name === 'merchant-desk')
          return (root = dir);
      } catch {
        /* keep looking */
      }
    }
    const up = path.dirname(dir);
    if (up === dir)
      throw new Error('cannot find the merchant-desk package.json above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

export function appVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(appRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The built renderer (npm run build:renderer). */
export function rendererDir(): string {
  return path.join(appRoot(), 'dist', 'renderer');
}
