import type { MessageId } from '../../../../main/words/words.shared.js';

/** The wallet types a person has words for (the service's enum names are shown only as a tooltip). */
export const WALLET_TYPES = ['MERCHANT_COLLECTION', 'MERCHANT_PAYOUT'] as const;

/** What a person calls each wallet type; an unknown type is named as the service sent it. */
export function walletLabel(t: (id: MessageId) => string, walletType: string): string {
  return (WALLET_TYPES as readonly string[]).includes(walletType)
    ? t(`balances.wallet.${walletType as (typeof WALLET_TYPES)[number]}`)
    : walletType;
}
