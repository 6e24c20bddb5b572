/** What a person calls each wallet type (the service's enum names are shown only as a tooltip). */
export const WALLET_LABEL: Record<string, string> = {
  MERCHANT_COLLECTION: 'Collection wallet',
  MERCHANT_PAYOUT: 'Payout wallet',
};

export function walletLabel(walletType: string): string {
  return WALLET_LABEL[walletType] ?? walletType;
}
