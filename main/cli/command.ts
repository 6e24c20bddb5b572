import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DeskError, messageOf } from '../errors.shared.js';

// A CLI subcommand. Commands print results to stdout, messages to stderr, and return an exit code.
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

export interface CliContext {
  io: CliIo;
  /** --data-dir, or the default app data folder. */
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  name: string;
  /** One line for `merchant-desk help`. */
  summary: string;
  usage: string;
  /**
   * What an unexpected failure of this command may have left changed, said after "<name> failed
   * unexpectedly; " (cli/failure.ts). Without it: "nothing was changed".
   */
  onFailure?: string;
  /**
   * Where the command logs, and so the detail of its failure: the data folder's log (default), or standard
   * error as JSON lines (serve, for journald).
   */
  logsTo?: 'data folder' | 'standard error';
  run(args: string[], ctx: CliContext): Promise<number>;
}

/** A mistake the user can fix; printed as "merchant-desk: <message>" with exit code 2. */
export class UsageError extends DeskError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    // Not exposed over IPC: the CLI prints it itself, and a usage message means nothing in a window.
    super('usage', message, opts);
  }
}

/** node:util parseArgs, with its complaints (unknown option, missing value) as a UsageError. */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    throw new UsageError(messageOf(e));
  }
}
