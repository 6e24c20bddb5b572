// Typed results of the three service operations, in Merchant Desk's own shape: amounts are integer
// minor units, names are camelCase. The wire shapes (snake_case) live only in the client's zod schemas.

export type WalletType = 'MERCHANT_COLLECTION' | 'MERCHANT_PAYOUT';

export interface WalletBalance {
  currency: string;
  walletType: WalletType | string;
  availableMinor: number;
  actualMinor: number;
  unclearedMinor: number;
  reserveMinor: number;
}

export interface PaymentOption {
  providerName: string;
  providerCode: string;
  transactionMethod: string;
  transactionMethodName: string;
  /** As the service writes it on records ("Collection"); filters are sent upper case. */
  transactionType: string;
  currency: string;
  minMinor: number;
  maxMinor: number;
  maxDailyMinor: number;
  isActive: boolean;
  optionPrefixes: string[];
}

export interface PaymentOptionsQuery {
  currency?: string;
  transactionType?: string;
}

/** Keys of the merchant account. Held in the keychain; only in memory here. */
export interface MerchantKeys {
  publicKey: string;
  secretKey: string;
}

/** The card object the service decrypts. Only ever exists in main, briefly, and is never logged. */
export interface CardData {
  first_name: string;
  last_name: string;
  card_no: string;
  exp_month: string;
  exp_year: string;
  cvv: string;
  billing_address?: string;
  billing_city?: string;
  billing_zip?: string;
  billing_state?: string;
  billing_country?: string;
  pin?: string;
}

export interface InitializeRequest {
  merchantReference: string;
  currency: string;
  amountMinor: number;
  description: string;
  cardCipher: string;
  redirectUrl: string;
  customerName?: string;
  customerEmail?: string;
  chargeCustomer?: boolean;
  allowFinalStatusChange?: boolean;
}

export interface InitializeAccepted {
  httpStatus: number;
  merchantReference: string;
  internalReference: string | undefined;
  paymentUrl: string;
  message: string | undefined;
}

export interface ServiceClient {
  getBalances(currency?: string): Promise<WalletBalance[]>;
  getPaymentOptions(query?: PaymentOptionsQuery): Promise<PaymentOption[]>;
  /** Never retried behind the caller's back. Throws UnknownOutcomeError when the outcome cannot be known. */
  initialize(request: InitializeRequest): Promise<InitializeAccepted>;
}

// --- Callback and redirect (DESIGN.md "callback", "signatures", "redirect") ---

export type FinalStatus = 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type CallbackEvent = 'transaction.completed' | 'transaction.failed' | 'transaction.cancelled';

export interface CallbackPayload {
  id: number | string;
  merchant_reference: string;
  internal_reference: string;
  transaction_type: string;
  request_currency: string;
  request_amount: number | string;
  transaction_currency: string;
  transaction_amount: number | string;
  transaction_charge: number | string;
  total_credit: number | string;
  charge_customer: boolean;
  provider_code: string;
  customer_name: string | null;
  transaction_status: string;
  status_message: string | null;
}

export interface CallbackBody {
  event: CallbackEvent | string;
  payload: CallbackPayload;
}

/** The fields that are signed, in signing order: event:merchant_reference:internal_reference:transaction_type:transaction_status */
export interface SignedFields {
  event: string;
  merchant_reference: string;
  internal_reference: string;
  transaction_type: string;
  transaction_status: string;
}
