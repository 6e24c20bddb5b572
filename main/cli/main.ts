import { runCli } from './index.js';

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
// Long-running commands (start, sandbox) resolve only when they are done.
process.exitCode = code;
