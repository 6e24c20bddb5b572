import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';

const made: string[] = [];
const kept: string[] = [];

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

/** A temp folder for the whole test file (made in a beforeAll, shared by its tests), removed after its last test. */
export function fileTempDir(prefix = 'md-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  kept.push(dir);
  return dir;
}

afterAll(() => {
  for (const d of kept.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
