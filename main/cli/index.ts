import { commands } from './commands/index.js';
import { UsageError, type CliContext, type CliIo } from './command.js';
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
    return fail(io, e);
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
  if (!cmd) return fail(io, new UsageError(`unknown command "${name}"; run "merchant-desk help"`));
  try {
    return await cmd.run(args, ctx);
  } catch (e) {
    return fail(io, e, cmd.usage);
  }
}

function fail(io: CliIo, e: unknown, usage?: string): number {
  const msg = e instanceof Error ? e.message : String(e);
  io.stderr.write(`merchant-desk: ${msg}\n`);
  if (e instanceof UsageError) {
    if (usage) io.stderr.write(`usage: ${usage}\n`);
    return 2;
  }
  return 1;
}
