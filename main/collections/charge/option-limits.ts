// Payment option limits for card charges: which active card option serves a currency, its min/max and
// daily limit with today's collected total (for the form's checks), and the options() view of them.
// Today's total is this desk's copy's on a solo desk, and the team's, read from the team record, on a
// team desk (its copy may be behind; the team database refuses an intent past the limit anyway).
import type { ReadDb } from '../../store/sqlite/connection.js';
import { cachedCardOption, cardOptionCurrencies } from '../../store/sqlite/read/card-options.js';
import type { Clock } from '../../clock.js';
import type { PaymentOption } from '../../service/types.js';
import { collectionOptions } from '../../service/collection-options.js';
import { currencyExponent, isKnownCurrency } from '../../money/index.js';
import { collectedToday, startOfDay } from '../query.js';
import type { AmountLimits } from '../card-input.shared.js';
import type { ChargeServiceDeps } from './types.js';

export interface CardOptionView {
  providerCode: string;
  providerName: string;
  currency: string;
  exponent: number;
  minMinor: number;
  maxMinor: number;
  maxDailyMinor: number;
  collectedTodayMinor: number;
  remainingTodayMinor: number;
}

export interface OptionLimits {
  /** The active card option of a currency, or null when there is none. */
  option(currency: string): Promise<PaymentOption | null>;
  /** The form's amount limits under an option; null when there is no option (or the currency is unknown). */
  limitsFor(option: PaymentOption | null, currency: string): Promise<AmountLimits | null>;
  /** Every active card option with today's collected total. */
  options(): Promise<CardOptionView[]>;
  /** Today's collected total of a currency that counts against the daily limit. */
  collectedToday(currency: string): Promise<number>;
}

/** The cached card option of a currency (payment_options), or null. A broken cache reads as none. */
function readOption(db: ReadDb, currency: string): PaymentOption | null {
  try {
    return cachedCardOption(db, currency);
  } catch {
    return null;
  }
}

export function createOptionLimits(
  db: ReadDb,
  clock: Clock,
  deps: Pick<ChargeServiceDeps, 'getClient' | 'getCardOption' | 'team'>,
): OptionLimits {
  /** The team's total when this is a team desk and the team database answers, else this copy's. */
  async function collected(currency: string, now: number): Promise<number> {
    const team = deps.team?.() ?? null;
    if (team) {
      const total = await team.collectedSince(currency, startOfDay(now));
      if (total !== null) return total;
    }
    return collectedToday(db, currency, now);
  }

  /**
   * One active card option per currency: from the cache, else (nothing cached yet) from the service, for
   * `currency` or for every currency the merchant holds.
   */
  async function cardOptions(currency?: string): Promise<PaymentOption[]> {
    let opts: PaymentOption[];
    try {
      opts = cardOptionCurrencies(db)
        .map((currency) => readOption(db, currency))
        .filter((x): x is PaymentOption => !!x);
    } catch {
      opts = [];
    }
    if (opts.length) return opts;
    const client = await deps.getClient();
    if (!client) return [];
    const read = await collectionOptions(client, currency === undefined ? undefined : [currency]);
    // Not one currency answered: the service could not be asked, which is said as it is (not "no option").
    if (read.read.length === 0 && read.unread[0]) throw read.unread[0].error;
    const all = read.options;
    const seen = new Set<string>();
    return all.filter((o) => {
      const ok = o.isActive && o.transactionMethod.toUpperCase() === 'CARD' && !seen.has(o.currency);
      if (ok) seen.add(o.currency);
      return ok;
    });
  }

  return {
    async option(currency) {
      if (deps.getCardOption) return deps.getCardOption(currency);
      return readOption(db, currency) ?? (await cardOptions(currency)).find((o) => o.currency === currency) ?? null;
    },
    async limitsFor(o, currency) {
      if (!o || !isKnownCurrency(currency)) return null;
      return {
        minMinor: o.minMinor,
        maxMinor: o.maxMinor,
        maxDailyMinor: o.maxDailyMinor,
        collectedTodayMinor: await collected(currency, clock.now()),
        exponent: currencyExponent(currency),
      };
    },
    collectedToday: (currency) => collected(currency, clock.now()),
    async options() {
      const opts = (await cardOptions()).filter((o) => isKnownCurrency(o.currency));
      const now = clock.now();
      const totals = await Promise.all(opts.map((o) => collected(o.currency, now)));
      return opts.map((o, i) => {
        const total = totals[i]!;
        return {
          providerCode: o.providerCode,
          providerName: o.providerName,
          currency: o.currency,
          exponent: currencyExponent(o.currency),
          minMinor: o.minMinor,
          maxMinor: o.maxMinor,
          maxDailyMinor: o.maxDailyMinor,
          collectedTodayMinor: total,
          remainingTodayMinor: Math.max(0, o.maxDailyMinor - total),
        };
      });
    },
  };
}
