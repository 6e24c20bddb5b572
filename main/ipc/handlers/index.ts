// Every capability's handler table, merged. A table takes the operations and queries it calls, bound to
// the desk once by composeCore (app/desk-operations.ts, app/desk-queries.ts); add one line per capability:
//   ...fooHandlers(operations, queries),
// The type below fails to compile when a channel in the contract has no handler (or vice versa).
import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
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

/** What a desk answers the screens with: its operations and its reads (core.operations, core.queries). */
export interface DeskCalls {
  operations: Operations;
  queries: Queries;
}

export function buildHandlers({ operations, queries }: DeskCalls): HandlersFor<Channels> & HandlerTable {
  const table: HandlersFor<Channels> = {
    ...appHandlers(operations, queries),
    ...balancesHandlers(operations, queries),
    ...optionsHandlers(operations, queries),
    ...settingsHandlers(operations, queries),
    ...collectionsHandlers(operations, queries),
    ...reconcileHandlers(operations, queries),
    ...reportsHandlers(operations, queries),
    ...lockHandlers(operations, queries),
    ...teamHandlers(queries),
  };
  return table as HandlersFor<Channels> & HandlerTable;
}
