import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { listPaymentOptions, paymentOptionsList, recordProvidersRun } from '../../main/store/sqlite/payment-options.js';
import type { PaymentOption } from '../../main/service/types.js';

const opt = (o: Partial<PaymentOption>): PaymentOption => ({
  providerName: 'MTN Mobile Money',
  providerCode: 'MTN_UGX',
  transactionMethod: 'MOBILE_MONEY',
  transactionMethodName: 'Mobile money',
  transactionType: 'Collection',
  currency: 'UGX',
  minMinor: 500,
  maxMinor: 5_000_000,
  maxDailyMinor: 20_000_000,
  isActive: true,
  optionPrefixes: ['25677', '25678'],
  ...o,
});

describe('payment options cache', () => {
  it('replaces the list whole on success and filters by currency, type, method and active', () => {
    const d = openDatabase(path.join(tempDir(), 'md.sqlite'));
    recordProvidersRun(d, {
      startedAt: 0,
      finishedAt: 10,
      result: { ok: true, value: [opt({}), opt({ providerCode: 'OLD', providerName: 'Old' })] },
    });
    recordProvidersRun(d, {
      startedAt: 20,
      finishedAt: 30,
      result: {
        ok: true,
        value: [
          opt({}),
          opt({ providerCode: 'CARD_UGX', providerName: 'Card', transactionMethod: 'CARD', optionPrefixes: [] }),
          opt({ providerCode: 'AIRTEL_KES', currency: 'KES', isActive: false, minMinor: 1000 }),
        ],
      },
    });
    const all = listPaymentOptions(d);
    expect(all.map((o) => o.providerCode).sort()).toEqual(['AIRTEL_KES', 'CARD_UGX', 'MTN_UGX']);
    expect(listPaymentOptions(d, { currency: 'UGX', transactionType: 'COLLECTION' }).length).toBe(2);
    expect(listPaymentOptions(d, { method: 'card' }).map((o) => o.providerCode)).toEqual(['CARD_UGX']);
    expect(listPaymentOptions(d, { active: false }).map((o) => o.providerCode)).toEqual(['AIRTEL_KES']);
    expect(listPaymentOptions(d, { transactionType: 'PAYOUT' })).toEqual([]);
    const mtn = all.find((o) => o.providerCode === 'MTN_UGX')!;
    expect(mtn).toMatchObject({
      optionPrefixes: ['25677', '25678'],
      isActive: true,
      transactionType: 'Collection',
      fetchedAt: 30,
    });
    const card = (currency: string) =>
      listPaymentOptions(d, { currency, method: 'CARD', transactionType: 'COLLECTION' });
    expect(card('UGX').map((o) => o.providerCode)).toEqual(['CARD_UGX']);
    expect(card('KES')).toEqual([]);
  });

  it('a failed or malformed poll leaves the cached list and records why', () => {
    const d = openDatabase(path.join(tempDir(), 'md.sqlite'));
    recordProvidersRun(d, { startedAt: 0, finishedAt: 10, result: { ok: true, value: [opt({})] } });
    const bad = recordProvidersRun(d, {
      startedAt: 20,
      finishedAt: 30,
      result: { ok: true, value: [opt({ providerCode: 'X' }), opt({ maxMinor: Number.NaN })] },
    });
    expect(bad.error?.message).toMatch(/payment_providers\[1\]\.max_amount is not a valid amount/);
    recordProvidersRun(d, {
      startedAt: 40,
      finishedAt: 50,
      result: { ok: false, error: { kind: 'network', message: 'refused' } },
    });
    const list = paymentOptionsList(d, { now: 60, staleAfterMs: 1000 });
    expect(list.rows.map((o) => o.providerCode)).toEqual(['MTN_UGX']);
    expect(list).toMatchObject({ asOf: 10, stale: true, lastError: { kind: 'network', message: 'refused', at: 50 } });
  });
});
