import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
import type { balancesChannels } from '../contract/balances.js';
import type { HandlersFor } from './types.js';

/** What these handlers call on the desk. */
export type BalancesOperations = Pick<Operations, 'refreshBalances'>;
export type BalancesQueries = Pick<Queries, 'balanceHistory' | 'latestBalances'>;

export const balancesHandlers = (
  ops: BalancesOperations,
  q: BalancesQueries,
): HandlersFor<typeof balancesChannels> => ({
  'balances.latest': ({ currency }) => q.latestBalances(currency),
  'balances.history': ({ currency, from, to }) => q.balanceHistory({ currency, from, to }),
  'balances.refresh': async () => {
    await ops.refreshBalances();
    return q.latestBalances();
  },
});
