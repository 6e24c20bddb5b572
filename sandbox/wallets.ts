// Wallets per currency and type, in integer minor units. actual is never stored: it is the sum.
import type { SandboxDb } from './store.js';
import { toWire } from './money.js';

export const WALLET_TYPES = ['MERCHANT_COLLECTION', 'MERCHANT_PAYOUT'] as const;
export type WalletType = (typeof WALLET_TYPES)[number];

export interface WalletRow {
  currency: string;
  wallet_type: WalletType;
  available: number;
  uncleared: number;
  reserve: number;
}

// [currency, type, available, uncleared, reserve] in minor units.
const SEED: [string, WalletType, number, number, number][] = [
  ['UGX', 'MERCHANT_COLLECTION', 12_500_000, 1_250_000, 300_000],
  ['UGX', 'MERCHANT_PAYOUT', 2_000_000, 0, 0],
  ['KES', 'MERCHANT_COLLECTION', 450_000_00, 35_250_50, 12_000_00],
  ['KES', 'MERCHANT_PAYOUT', 80_000_00, 0, 0],
  ['TZS', 'MERCHANT_COLLECTION', 9_800_000_00, 650_000_00, 210_000_00],
  ['TZS', 'MERCHANT_PAYOUT', 1_500_000_00, 0, 0],
  ['USD', 'MERCHANT_COLLECTION', 3_250_75, 410_25, 120_00],
  ['USD', 'MERCHANT_PAYOUT', 900_00, 0, 0],
];

export function seedWallets(db: SandboxDb): void {
  const count = (db.prepare('SELECT COUNT(*) AS n FROM wallets').get() as { n: number }).n;
  if (count > 0) return;
  const ins = db.prepare(
    'INSERT INTO wallets (currency, wallet_type, available, uncleared, reserve) VALUES (?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (const row of SEED) ins.run(...row);
  })();
}

export function heldCurrencies(db: SandboxDb): Set<string> {
  const rows = db.prepare('SELECT DISTINCT currency FROM wallets').all() as { currency: string }[];
  return new Set(rows.map((r) => r.currency));
}

export function listWallets(db: SandboxDb, currency?: string): WalletRow[] {
  const rows =
    currency === undefined
      ? db.prepare('SELECT * FROM wallets ORDER BY currency, wallet_type').all()
      : db.prepare('SELECT * FROM wallets WHERE currency = ? ORDER BY wallet_type').all(currency);
  return rows as WalletRow[];
}

export function walletToWire(w: WalletRow) {
  const actual = w.available + w.uncleared + w.reserve;
  return {
    available_balance: toWire(w.available, w.currency),
    actual_balance: toWire(actual, w.currency),
    uncleared_balance: toWire(w.uncleared, w.currency),
    reserve_balance: toWire(w.reserve, w.currency),
    currency: w.currency,
    wallet_type: w.wallet_type,
  };
}

/** Adds (or with negative numbers, takes away) to the collection wallet of a currency. */
export function moveCollectionWallet(
  db: SandboxDb,
  currency: string,
  delta: { available?: number; uncleared?: number; reserve?: number },
): void {
  db.prepare(
    `UPDATE wallets SET available = available + ?, uncleared = uncleared + ?, reserve = reserve + ?
     WHERE currency = ? AND wallet_type = 'MERCHANT_COLLECTION'`,
  ).run(delta.available ?? 0, delta.uncleared ?? 0, delta.reserve ?? 0, currency);
}
