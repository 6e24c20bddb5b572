// The payment options catalogue. Limits are integer minor units here; the wire shows major units.
export interface OptionDef {
  provider_name: string;
  provider_code: string;
  transaction_method: 'MOBILE_MONEY' | 'CARD';
  transaction_method_name: string;
  /** As written on records: "Collection" / "Payout". */
  transaction_type: 'Collection' | 'Payout';
  transaction_currency: string;
  minMinor: number;
  maxMinor: number;
  maxDailyMinor: number;
  is_active: boolean;
  option_prefixes: string[];
}

export const TRANSACTION_TYPES = ['COLLECTION', 'PAYOUT'] as const;

function mm(
  name: string,
  code: string,
  type: 'Collection' | 'Payout',
  currency: string,
  min: number,
  max: number,
  daily: number,
  prefixes: string[],
  active = true,
): OptionDef {
  return {
    provider_name: name,
    provider_code: code,
    transaction_method: 'MOBILE_MONEY',
    transaction_method_name: 'Mobile Money',
    transaction_type: type,
    transaction_currency: currency,
    minMinor: min,
    maxMinor: max,
    maxDailyMinor: daily,
    is_active: active,
    option_prefixes: prefixes,
  };
}

function card(currency: string, min: number, max: number, daily: number): OptionDef {
  return {
    provider_name: `Visa / Mastercard (${currency})`,
    provider_code: `CARD_${currency}`,
    transaction_method: 'CARD',
    transaction_method_name: 'Card',
    transaction_type: 'Collection',
    transaction_currency: currency,
    minMinor: min,
    maxMinor: max,
    maxDailyMinor: daily,
    is_active: true,
    option_prefixes: [],
  };
}

const UG_MTN = ['25677', '25678', '25676', '25639'];
const UG_AIRTEL = ['25670', '25675', '25674', '25620'];
const KE_MPESA = ['25470', '25471', '25472', '25479', '25411'];
const KE_AIRTEL = ['25473', '25478', '25410'];
const TZ_VODA = ['25574', '25575', '25576'];
const TZ_TIGO = ['25565', '25567', '25571'];
const TZ_HALO = ['25562'];

export const OPTIONS: OptionDef[] = [
  mm('MTN Mobile Money Uganda', 'MTN_UGX', 'Collection', 'UGX', 500, 5_000_000, 20_000_000, UG_MTN),
  mm('Airtel Money Uganda', 'AIRTEL_UGX', 'Collection', 'UGX', 500, 5_000_000, 20_000_000, UG_AIRTEL),
  mm('MTN Mobile Money Uganda', 'MTN_UGX', 'Payout', 'UGX', 500, 5_000_000, 20_000_000, UG_MTN),
  card('UGX', 1_000, 10_000_000, 50_000_000),
  mm('M-Pesa Kenya', 'MPESA_KES', 'Collection', 'KES', 10_00, 150_000_00, 500_000_00, KE_MPESA),
  mm('Airtel Money Kenya', 'AIRTEL_KES', 'Collection', 'KES', 10_00, 150_000_00, 500_000_00, KE_AIRTEL),
  mm('M-Pesa Kenya', 'MPESA_KES', 'Payout', 'KES', 10_00, 150_000_00, 500_000_00, KE_MPESA),
  card('KES', 50_00, 300_000_00, 1_500_000_00),
  mm('Vodacom M-Pesa Tanzania', 'VODACOM_TZS', 'Collection', 'TZS', 1_000_00, 5_000_000_00, 20_000_000_00, TZ_VODA),
  mm('Tigo Pesa Tanzania', 'TIGO_TZS', 'Collection', 'TZS', 1_000_00, 5_000_000_00, 20_000_000_00, TZ_TIGO),
  // The inactive one: listed, but not usable.
  mm('HaloPesa Tanzania', 'HALOPESA_TZS', 'Collection', 'TZS', 1_000_00, 1_000_000_00, 5_000_000_00, TZ_HALO, false),
  card('TZS', 2_000_00, 10_000_000_00, 50_000_000_00),
  card('USD', 1_00, 5_000_00, 20_000_00),
];

export function cardOption(currency: string): OptionDef | undefined {
  return OPTIONS.find((o) => o.transaction_method === 'CARD' && o.transaction_currency === currency);
}
