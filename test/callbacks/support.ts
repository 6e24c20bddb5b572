import crypto from 'node:crypto';

export const SIGNING_KEY = 'test-signing-key-' + crypto.randomBytes(8).toString('hex');

export function callbackBody(reference: string, status = 'COMPLETED', over: Record<string, unknown> = {}) {
  const event =
    { COMPLETED: 'transaction.completed', FAILED: 'transaction.failed', CANCELLED: 'transaction.cancelled' }[status] ??
    'transaction.completed';
  return {
    event,
    payload: {
      id: 77,
      merchant_reference: reference,
      internal_reference: 'INT-' + reference,
      transaction_type: 'Collection',
      request_currency: 'UGX',
      request_amount: 15000,
      transaction_currency: 'UGX',
      transaction_amount: 15000,
      transaction_charge: 525,
      total_credit: 14475,
      charge_customer: false,
      provider_code: 'CARD_UGX',
      customer_name: 'Amina N',
      transaction_status: status,
      status_message: status === 'COMPLETED' ? 'Approved' : 'Card declined',
      ...over,
    },
  };
}

/** hmac-signature header as the service makes it: t=<unix s>,s=<hex HMAC-SHA256 of the signed string>. */
export function hmacHeader(
  body: ReturnType<typeof callbackBody>,
  key = SIGNING_KEY,
  t = Math.floor(Date.now() / 1000),
): string {
  const p = body.payload;
  const signed = [
    body.event,
    p.merchant_reference,
    p.internal_reference,
    p.transaction_type,
    p.transaction_status,
  ].join(':');
  return `t=${t},s=${crypto.createHmac('sha256', key).update(signed).digest('hex')}`;
}

/**
 * The text of `body` with an array nested `depth` deep in its payload (issue 39: 8,000 deep in 17 KB ran the
 * stack out). Its signed fields are untouched, so hmacHeader(body) still signs it.
 */
export function deeplyNested(body: ReturnType<typeof callbackBody>, depth = 8000): string {
  const text = JSON.stringify({ ...body, payload: { ...body.payload, extra: 0 } });
  return text.replace('"extra":0', `"extra":${'['.repeat(depth)}${']'.repeat(depth)}`);
}
