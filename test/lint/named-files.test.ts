// Comments and docs that name a source file (`gate.ts`, `main/collections/flags.ts`) must name one that
// exists: a reader sent to a file that was renamed or split finds nothing. A name matches when some file
// in the tree has that path or ends with it (`sync/apply.ts`, `apply.ts`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCANNED = ['main', 'renderer', 'preload', 'test', 'docs', 'scripts', 'README.md'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'screenshots']);
const TEXT = /\.(?:ts|tsx|mjs|js|md|sh)$/;

/** Files that name paths which are not meant to exist in this tree, and why. */
const EXEMPT: Record<string, string> = {
  'test/lint/import-boundaries.test.ts': 'lints snippets as if they were placed at made-up paths',
  'test/lint/house.test.ts':
    'lints snippets as if they were placed at made-up paths, and writes one barrel for a moment',
  'test/bench/ingest.ts': 'loads the modules of another tree, which may have files this one has not',
  'test/lint/named-files.test.ts': 'this file',
};

function walk(rel: string, out: string[]): void {
  const abs = path.join(root, rel);
  if (!fs.existsSync(abs)) return;
  if (fs.statSync(abs).isFile()) {
    out.push(rel);
    return;
  }
  for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
    if (e.isDirectory() && SKIPPED_DIRS.has(e.name)) continue;
    walk(path.posix.join(rel, e.name), out);
  }
}

function treeFiles(): string[] {
  const out: string[] = [];
  for (const top of fs.readdirSync(root)) {
    if (top.startsWith('.') || SKIPPED_DIRS.has(top) || top === 'test-results') continue;
    walk(top, out);
  }
  return out;
}

describe('file names in comments and docs', () => {
  it('every named .ts/.tsx file exists in the tree', () => {
    const files = treeFiles();
    const exists = (name: string) => files.some((f) => f === name || f.endsWith('/' + name));
    const missing: string[] = [];
    const scanned: string[] = [];
    for (const top of SCANNED) walk(top, scanned);
    for (const file of scanned) {
      if (!TEXT.test(file) || EXEMPT[file]) continue;
      const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        for (const m of line.matchAll(/(?<![\w/.-])(\w[\w.-]*(?:\/[\w.-]+)*\.tsx?)\b/g)) {
          const name = m[1]!.replace(/^\.\//, '');
          if (!exists(name)) missing.push(`${file}:${i + 1} names ${name}`);
        }
      });
    }
    expect(missing).toEqual([]);
  });
});
