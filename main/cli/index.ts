import { commands } from './commands/index.js';
import { UsageError, type CliContext, type CliIo } from './command.js';
import { defaultDataDir } from './data-dir.js';

/** Runs `merchant-desk [--data-dir DIR] <command> [args]` and returns the exit code. */
export async function runCli(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = [...argv];
  let dataDir = defaultDataDir(env);
  while (args[0]?.startsWith('--')) {
    const flag = args.shift()!;
    if (flag === '--data-dir') {
      const v = args.shift();
      if (!v) return fail(io, new UsageError('--data-dir needs a folder'));
      dataDir = v;
    } else if (flag === '--help') {
      args.unshift('help');
      break;
    } else {
      // Unknown leading flags belong to the default command (start), e.g. `merchant-desk --headless`.
      args.unshift(flag);
      break;
    }
  }
  const name = args[0] && !args[0].startsWith('--') ? args.shift()! : 'start';
  const ctx: CliContext = { io, dataDir, env };
  if (name === 'help') {
    io.stdout.write('usage: merchant-desk [--data-dir DIR] <command> [options]\n\ncommands:\n');
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
