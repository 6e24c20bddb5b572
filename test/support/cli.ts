// Runs the real CLI (`node --import tsx main/cli/main.ts ARGS`) from the repository root, writes `stdin`
// and closes it, and collects what it printed. One helper for every test that drives the CLI.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `env` is added to the test run's environment, which never hands the CLI a password by accident:
 * PGPASSWORD and MERCHANT_DESK_NEW_PASSWORD reach it only when `env` names them.
 */
export function runCli(args: string[], o: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...o.env };
    if (!o.env?.PGPASSWORD) delete env.PGPASSWORD;
    if (!o.env?.MERCHANT_DESK_NEW_PASSWORD) delete env.MERCHANT_DESK_NEW_PASSWORD;
    const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli/main.ts', ...args], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(o.stdin ?? '');
  });
}
