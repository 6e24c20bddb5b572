import type { Command } from '../command.js';
import { startCommand } from './start.js';
import { connectCommand } from './connect.js';
import { balancesCommand } from './balances.js';
import { providersCommand } from './providers.js';
import { pollCommand } from './poll.js';
import { sandboxCommand } from './sandbox.js';
import { importCallbacksCommand } from './import-callbacks.js';
import { reconcileCommand } from './reconcile.js';
import { exportCommand } from './export.js';
import { teamCommand } from './team.js';
import { serveCommand } from './serve.js';

// One entry per subcommand; each lives in its own module in this folder.
export const commands: Command[] = [
  startCommand,
  connectCommand,
  balancesCommand,
  providersCommand,
  pollCommand,
  sandboxCommand,
  importCallbacksCommand,
  reconcileCommand,
  exportCommand,
  teamCommand,
  serveCommand,
];
