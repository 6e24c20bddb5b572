// A collections row as the screens read it (the page's and the detail's columns) and its mapper: one
// definition for collections-page.ts, collection-detail.ts and exceptions.ts.
import { int, num, rowMapper, text, textOrNull } from '../../columns.js';

/** A collections row as stored (the page's and the detail's columns). */
export type CollectionRecord = {
  id: number;
  merchant_reference: string;
  internal_reference: string | null;
  created_at: number;
  amount_minor: number;
  currency: string;
  description: string;
  customer_name: string | null;
  customer_email: string | null;
  charge_customer: number;
  allow_final_status_change: number;
  operator: string;
  provider_code: string | null;
  card_brand: string | null;
  card_last4: string | null;
  status: string;
  status_changed_at: number;
  status_message: string | null;
  payment_url: string | null;
  redirect_status: string | null;
  redirect_signature: string | null;
  callback_status: string | null;
  flags: number;
  final_changes: number;
};

/** A row of COLLECTION_COLUMNS. */
export const collectionRecordOf = rowMapper<CollectionRecord>((r) => ({
  id: int(r, 'id'),
  merchant_reference: text(r, 'merchant_reference'),
  internal_reference: textOrNull(r, 'internal_reference'),
  created_at: num(r, 'created_at'),
  amount_minor: int(r, 'amount_minor'),
  currency: text(r, 'currency'),
  description: text(r, 'description'),
  customer_name: textOrNull(r, 'customer_name'),
  customer_email: textOrNull(r, 'customer_email'),
  charge_customer: int(r, 'charge_customer'),
  allow_final_status_change: int(r, 'allow_final_status_change'),
  operator: text(r, 'operator'),
  provider_code: textOrNull(r, 'provider_code'),
  card_brand: textOrNull(r, 'card_brand'),
  card_last4: textOrNull(r, 'card_last4'),
  status: text(r, 'status'),
  status_changed_at: num(r, 'status_changed_at'),
  status_message: textOrNull(r, 'status_message'),
  payment_url: textOrNull(r, 'payment_url'),
  redirect_status: textOrNull(r, 'redirect_status'),
  redirect_signature: textOrNull(r, 'redirect_signature'),
  callback_status: textOrNull(r, 'callback_status'),
  flags: int(r, 'flags'),
  final_changes: int(r, 'final_changes'),
}));

export const COLLECTION_COLUMNS = `id, merchant_reference, internal_reference, created_at, amount_minor, currency, description, customer_name,
  customer_email, charge_customer, allow_final_status_change, operator, provider_code, card_brand, card_last4, status,
  status_changed_at, status_message, payment_url, redirect_status, redirect_signature, callback_status, flags, final_changes`;
