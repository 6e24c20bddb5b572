import type { Command } from '../command.js';

// One entry per subcommand; each lives in its own module in this folder.
export const commands: Command[] = [];
