// Every capability's handler table, merged. Add one line per capability:
//   ...fooHandlers(core),
// The type below fails to compile when a channel in the contract has no handler (or vice versa).
import type { Core } from '../../app/core.js';
import type { Channels } from '../contract/index.js';
import type { HandlersFor, HandlerTable } from './types.js';
import { appHandlers } from './app.js';

export function buildHandlers(core: Core): HandlersFor<Channels> & HandlerTable {
  const table: HandlersFor<Channels> = {
    ...appHandlers(core),
  };
  return table as HandlersFor<Channels> & HandlerTable;
}
