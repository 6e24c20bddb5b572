import type { Operations } from '../../app/desk-operations.js';
import type { Queries } from '../../app/desk-queries.js';
import type { optionsChannels, PaymentOptionView } from '../contract/options.js';
import type { HandlersFor } from './types.js';

/** What these handlers call on the desk. */
export type OptionsOperations = Pick<Operations, 'refreshPaymentOptions'>;
export type OptionsQueries = Pick<
  Queries,
  'allPaymentOptions' | 'collectedToday' | 'paymentOptions' | 'paymentOptionsCache'
>;

export const optionsHandlers = (ops: OptionsOperations, q: OptionsQueries): HandlersFor<typeof optionsChannels> => ({
  'options.list': async (r) => {
    const list = q.paymentOptions({
      ...(r.currency ? { currency: r.currency } : {}),
      ...(r.transactionType ? { transactionType: r.transactionType } : {}),
      ...(r.method ? { method: r.method } : {}),
      ...(r.active !== undefined ? { active: r.active } : {}),
    });
    // Today's total against a card option's daily limit: the charges' own count (a team desk: the team's).
    const isCard = (o: { transactionMethod: string }) => o.transactionMethod.toUpperCase() === 'CARD';
    const currencies = [...new Set(list.rows.filter(isCard).map((o) => o.currency))];
    const totals = new Map(await Promise.all(currencies.map(async (c) => [c, await q.collectedToday(c)] as const)));
    const rows: PaymentOptionView[] = list.rows.map((o) => ({
      ...o,
      collectedTodayMinor: isCard(o) ? (totals.get(o.currency) ?? null) : null,
    }));
    const all = q.allPaymentOptions();
    const uniq = (xs: string[]) => [...new Set(xs)].sort();
    return {
      rows,
      asOf: list.asOf,
      lastError: list.lastError,
      stale: list.stale,
      facets: {
        currencies: uniq(all.map((o) => o.currency)),
        transactionTypes: uniq(all.map((o) => o.transactionType)),
        methods: uniq(all.map((o) => o.transactionMethod)),
      },
    };
  },
  'options.refresh': async () => {
    await ops.refreshPaymentOptions();
    return q.paymentOptionsCache();
  },
});
