import { z } from 'zod';
import { channel, noRequest } from './define.js';

const currency = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{3}$/, 'errors.zod.currency');

/** A poll failure as the cache remembers it. */
export interface CacheError {
  kind: string;
  message: string;
  at: number;
  httpStatus?: number;
}

/** Cached data is always shown with when it was last confirmed and whether it is stale. */
export interface CacheMeta {
  /** When the last successful poll finished (ms since epoch), or null if there never was one. */
  asOf: number | null;
  lastError: CacheError | null;
  /** The last poll failed, or the data is older than the stale threshold. */
  stale: boolean;
}

export interface WalletBalanceView {
  currency: string;
  walletType: string;
  availableMinor: number;
  unclearedMinor: number;
  reserveMinor: number;
  actualMinor: number;
  /** When these values were first seen. */
  observedAt: number;
  /** actual == available + uncleared + reserve; false means alert. */
  consistent: boolean;
}

export interface BalancePointView {
  at: number;
  currency: string;
  walletType: string;
  availableMinor: number;
  unclearedMinor: number;
  reserveMinor: number;
  actualMinor: number;
}

export const balancesChannels = {
  'balances.latest': channel<
    z.ZodObject<{ currency: z.ZodOptional<typeof currency> }>,
    CacheMeta & { rows: WalletBalanceView[] }
  >(z.object({ currency: currency.optional() })),
  /** History of one currency over [from, to] (default: the last 7 days). */
  'balances.history': channel<
    z.ZodObject<{ currency: typeof currency; from: z.ZodOptional<z.ZodNumber>; to: z.ZodOptional<z.ZodNumber> }>,
    { currency: string; from: number; to: number; points: BalancePointView[] }
  >(
    z.object({
      currency,
      from: z.number().int().nonnegative().optional(),
      to: z.number().int().nonnegative().optional(),
    }),
  ),
  /** Polls balances now (joins a poll in flight); answers with the cache after it. */
  'balances.refresh': channel<typeof noRequest, CacheMeta & { rows: WalletBalanceView[] }>(noRequest),
};

export type balancesEvents = {
  /** After every balances poll (ok or not): reload. */
  'balances.updated': { outcome: 'ok' | 'error'; changed: number };
};
