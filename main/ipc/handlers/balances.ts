import type { Core } from '../../app/core.js';
import type { balancesChannels } from '../contract/balances.js';
import type { HandlersFor } from './types.js';
import { balanceHistory, latestBalances } from '../../store/sqlite/balances.js';

const DAY = 86_400_000;

/** What these handlers call on the desk: named, not the whole Core. */
export type BalancesDeps = Pick<Core, 'clock' | 'db' | 'poller' | 'ready' | 'settings'>;

export const balancesHandlers = (core: BalancesDeps): HandlersFor<typeof balancesChannels> => {
  const latest = (currency?: string) =>
    latestBalances(core.db, {
      now: core.clock.now(),
      staleAfterMs: core.settings().staleAfterMs,
      ...(currency ? { currency } : {}),
    });
  return {
    'balances.latest': ({ currency }) => latest(currency),
    'balances.history': ({ currency, from, to }) => {
      const end = to ?? core.clock.now();
      const start = from ?? end - 7 * DAY;
      return { currency, from: start, to: end, points: balanceHistory(core.db, { currency, from: start, to: end }) };
    },
    'balances.refresh': async () => {
      await core.ready(); // while the sandbox starts there is no poller yet: wait for it
      await core.poller?.refresh('balances');
      return latest();
    },
  };
};
