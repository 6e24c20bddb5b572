import type { Command } from '../command.js';
import { startCommand } from './start.js';

// One entry per subcommand; each lives in its own module in this folder.
export const commands: Command[] = [
  startCommand,
];
