// Every capability's handler table, merged. Add one line per capability:
//   ...fooHandlers(core),
// The type below fails to compile when a channel in the contract has no handler (or vice versa).
import type { Core } from '../../app/core.js';
import type { Channels } from '../contract/index.js';
import type { HandlersFor, HandlerTable } from './types.js';
import { appHandlers } from './app.js';
import { balancesHandlers } from './balances.js';
import { optionsHandlers } from './options.js';
import { settingsHandlers } from './settings.js';
import { collectionsHandlers } from './collections.js';
import { reconcileHandlers } from './reconcile.js';
import { reportsHandlers } from './reports.js';
import { lockHandlers } from './lock.js';
import { teamHandlers } from './team.js';

export function buildHandlers(core: Core): HandlersFor<Channels> & HandlerTable {
  const table: HandlersFor<Channels> = {
    ...appHandlers(core),
    ...balancesHandlers(core),
    ...optionsHandlers(core),
    ...settingsHandlers(core),
    ...collectionsHandlers(core),
    ...reconcileHandlers(core),
    ...reportsHandlers(core),
    ...lockHandlers(core),
    ...teamHandlers({ team: () => core.team() }),
  };
  return table as HandlersFor<Channels> & HandlerTable;
}
