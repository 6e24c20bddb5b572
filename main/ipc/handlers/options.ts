import type { Core } from '../../app/core.js';
import type { optionsChannels, PaymentOptionView } from '../contract/options.js';
import type { HandlersFor } from './types.js';
import { listPaymentOptions, paymentOptionsList } from '../../store/sqlite/payment-options.js';
import { cacheState } from '../../store/sqlite/poll-runs.js';

/** What these handlers call on the desk: named, not the whole Core. */
export type OptionsDeps = Pick<Core, 'charges' | 'clock' | 'db' | 'poller' | 'settings'>;

export const optionsHandlers = (core: OptionsDeps): HandlersFor<typeof optionsChannels> => ({
  'options.list': async (q) => {
    const now = core.clock.now();
    const list = paymentOptionsList(core.db, {
      now,
      staleAfterMs: Math.max(core.settings().staleAfterMs, core.settings().pollIntervals.providersMs * 2),
      ...(q.currency ? { currency: q.currency } : {}),
      ...(q.transactionType ? { transactionType: q.transactionType } : {}),
      ...(q.method ? { method: q.method } : {}),
      ...(q.active !== undefined ? { active: q.active } : {}),
    });
    // Today's total against a card option's daily limit: the charges' own count (a team desk: the team's).
    const isCard = (r: { transactionMethod: string }) => r.transactionMethod.toUpperCase() === 'CARD';
    const currencies = [...new Set(list.rows.filter(isCard).map((r) => r.currency))];
    const charges = core.charges();
    const totals = new Map(
      await Promise.all(currencies.map(async (c) => [c, await charges.collectedToday(c)] as const)),
    );
    const rows: PaymentOptionView[] = list.rows.map((r) => ({
      ...r,
      collectedTodayMinor: isCard(r) ? (totals.get(r.currency) ?? null) : null,
    }));
    const all = listPaymentOptions(core.db);
    const uniq = (xs: string[]) => [...new Set(xs)].sort();
    return {
      rows,
      asOf: list.asOf,
      lastError: list.lastError,
      stale: list.stale,
      facets: {
        currencies: uniq(all.map((r) => r.currency)),
        transactionTypes: uniq(all.map((r) => r.transactionType)),
        methods: uniq(all.map((r) => r.transactionMethod)),
      },
    };
  },
  'options.refresh': async () => {
    await core.poller?.refresh('providers');
    const s = core.settings();
    return cacheState(
      core.db,
      'providers',
      core.clock.now(),
      Math.max(s.staleAfterMs, s.pollIntervals.providersMs * 2),
    );
  },
});
