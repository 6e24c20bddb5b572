import { commands } from './commands/index.js';
import { UsageError, type CliContext, type CliIo, type Command } from './command.js';
import { failureLines } from './failure.js';
import { defaultDataDir } from '../settings/paths.js';

/**
 * Takes the global options (--data-dir DIR, --data-dir=DIR) out of the arguments wherever they stand, so
 * `merchant-desk start --data-dir DIR` works like `merchant-desk --data-dir DIR start`. Nothing after a
 * bare `--` is touched.
 */
export function takeGlobalOptions(argv: readonly string[]): { args: string[]; dataDir?: string } {
  const args: string[] = [];
  let dataDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i));
      break;
    }
    if (a === '--data-dir') {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new UsageError('--data-dir needs a folder');
      dataDir = v;
      i++;
    } else if (a.startsWith('--data-dir=')) {
      const v = a.slice('--data-dir='.length);
      if (!v) throw new UsageError('--data-dir needs a folder');
      dataDir = v;
    } else {
      args.push(a);
    }
  }
  return dataDir === undefined ? { args } : { args, dataDir };
}

/** Runs `merchant-desk [--data-dir DIR] <command> [args]` (global options may also follow the command). */
export async function runCli(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: string[];
  let dataDir = defaultDataDir(env);
  try {
    const g = takeGlobalOptions(argv);
    args = g.args;
    if (g.dataDir !== undefined) dataDir = g.dataDir;
  } catch (e) {
    return fail(io, e, undefined, dataDir);
  }
  if (args[0] === '--help') args[0] = 'help';
  // Other leading flags belong to the default command (start), e.g. `merchant-desk --headless`.
  const name = args[0] && !args[0].startsWith('--') ? args.shift()! : 'start';
  const ctx: CliContext = { io, dataDir, env };
  if (name === 'help') {
    io.stdout.write(
      'usage: merchant-desk [--data-dir DIR] <command> [options]   (--data-dir may also follow the command)\n\ncommands:\n',
    );
    for (const c of commands) io.stdout.write(`  ${c.name.padEnd(18)} ${c.summary}\n`);
    return 0;
  }
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) return fail(io, new UsageError(`unknown command "${name}"; run "merchant-desk help"`), undefined, dataDir);
  return runCommand(cmd, args, ctx);
}

/** Runs one command; whatever it throws is said as failure.ts says it (exit 2 for a usage error, else 1). */
export async function runCommand(cmd: Command, args: string[], ctx: CliContext): Promise<number> {
  try {
    return await cmd.run(args, ctx);
  } catch (e) {
    return fail(ctx.io, e, cmd, ctx.dataDir);
  }
}

function fail(io: CliIo, e: unknown, cmd: Command | undefined, dataDir: string): number {
  for (const line of failureLines(e, cmd, dataDir)) io.stderr.write(`merchant-desk: ${line}\n`);
  if (e instanceof UsageError) {
    if (cmd) io.stderr.write(`usage: ${cmd.usage}\n`);
    return 2;
  }
  return 1;
}
