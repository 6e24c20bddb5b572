// Another process on the same SQLite file: a real child process with its own connection, as when the
// CLI or a second app instance writes while the app runs.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HOLDER = `
const Database = require('better-sqlite3');
const [file, ms] = process.argv.slice(1);
const db = new Database(file);
db.pragma('busy_timeout = 5000');
db.exec('BEGIN IMMEDIATE');
db.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('second-process', '1', 0) ON CONFLICT (key) DO UPDATE SET updated_at = updated_at + 1").run();
process.stdout.write('locked\\n');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(ms));
db.exec('COMMIT');
db.close();
`;

export interface HeldLock {
  /** Resolves when the other process has committed and exited. */
  released: Promise<void>;
}

/** A second process takes the write lock on `file`, writes a row, holds the lock for `ms`, then commits. */
export function holdWriteLock(file: string, ms: number): Promise<HeldLock> {
  const child = spawn(process.execPath, ['-e', HOLDER, file, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const released = exited(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('locked')) resolve({ released });
    });
    released.then(() => reject(new Error('the lock holder exited before taking the lock')), reject);
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the second process exited with ${code}`))));
  });
}

const OPENER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'open-database-child.ts');

/**
 * `n` processes open the same database at (nearly) the same moment: each loads the app's store code,
 * says ready, and opens only when all are ready. Resolves with each process's last line.
 */
export async function openFromProcesses(file: string, n: number): Promise<string[]> {
  const children = Array.from({ length: n }, () =>
    spawn(process.execPath, ['--import', 'tsx', OPENER, file], { stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const outputs = children.map(() => '');
  const ready = children.map(
    (c, i) =>
      new Promise<void>((resolve, reject) => {
        c.stdout!.on('data', (d: Buffer) => {
          outputs[i] += d.toString();
          if (outputs[i]!.includes('ready')) resolve();
        });
        c.stderr!.on('data', (d: Buffer) => (outputs[i] += d.toString()));
        c.on('exit', () => reject(new Error(`child ${i} exited before it was ready: ${outputs[i]}`)));
      }),
  );
  const done = children.map((c) => new Promise<void>((resolve) => c.on('exit', () => resolve())));
  await Promise.all(ready);
  for (const c of children) c.stdin!.end('go\n');
  await Promise.all(done);
  return outputs.map((o) => o.trim().split('\n').pop()!);
}
