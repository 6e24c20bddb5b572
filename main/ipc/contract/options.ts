import { z } from 'zod';
import { channel, noRequest } from './define.js';
import type { CacheMeta } from './balances.js';
import type { PaymentOption } from '../../service/types.js';

/** A cached payment option as the screens show it: the service's record plus when and how much today. */
export interface PaymentOptionView extends PaymentOption {
  fetchedAt: number;
  /** Card options: today's collected total (completed + pending), minor units; null for other methods. */
  collectedTodayMinor: number | null;
}

const optText = z.string().trim().max(40).optional();

export const optionsChannels = {
  'options.list': channel<
    z.ZodObject<{
      currency: typeof optText;
      transactionType: typeof optText;
      method: typeof optText;
      active: z.ZodOptional<z.ZodBoolean>;
    }>,
    CacheMeta & {
      rows: PaymentOptionView[];
      /** Every value present in the cache, for the filter menus. */
      facets: { currencies: string[]; transactionTypes: string[]; methods: string[] };
    }
  >(z.object({ currency: optText, transactionType: optText, method: optText, active: z.boolean().optional() })),
  'options.refresh': channel<typeof noRequest, CacheMeta>(noRequest),
};

export type optionsEvents = {
  'options.updated': { outcome: 'ok' | 'error'; changed: number };
};
