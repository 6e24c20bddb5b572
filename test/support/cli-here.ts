// The CLI's entry (main/cli runCli) in this process, with its streams captured: faster than the real CLI
// in a process of its own (support/cli.ts), the same code. One helper for every test that runs it so.
import { PassThrough } from 'node:stream';
import { runCli as runCliEntry } from '../../main/cli/index.js';
import type { CliIo } from '../../main/cli/command.js';

/** Streams for the CLI's entry in this process: `stdin` written and closed, what it prints collected. */
export function captureIo(stdin = ''): { io: CliIo; out(): string; err(): string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const input = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  input.end(stdin);
  return { io: { stdout, stderr, stdin: input }, out: () => out, err: () => err };
}

/** Runs `merchant-desk ARGS` here; what it printed and its exit code. */
export async function runCliHere(
  args: string[],
  stdin = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  const c = captureIo(stdin);
  const code = await runCliEntry(args, c.io);
  return { code, stdout: c.out(), stderr: c.err() };
}
