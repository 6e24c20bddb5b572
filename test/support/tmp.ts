import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];

/** A fresh temp folder for this test, removed after it. Every test gets its own data folder. */
export function tempDir(prefix = 'md-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(() => {
  while (made.length) {
    const d = made.pop()!;
    fs.rmSync(d, { recursive: true, force: true });
  }
});
