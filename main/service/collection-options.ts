// The payment options asked as the contract shows the request: once per currency the merchant holds (the
// currencies of its balances), with transaction_type=COLLECTION. The contract leaves open whether the two
// are required; a service that requires them would answer a bare request with an error or nothing, and the
// desk could take no payment. Each currency is asked on its own, so one that cannot be read is named and
// the others are still read.
import { isServiceError, type ServiceError } from './errors.js';
import type { PaymentOption, ServiceClient } from './types.js';

export interface CollectionOptions {
  /** The options of every currency that was read. */
  options: PaymentOption[];
  /** The currencies asked and answered, in the order asked. */
  read: string[];
  /** The currencies whose options could not be read, each with the service error that said why. */
  unread: { currency: string; error: ServiceError }[];
}

/**
 * The COLLECTION options of `currencies`, or of the currencies the merchant holds (one balance inquiry)
 * when none are given. A failed balance inquiry is thrown; a failed currency is in `unread`.
 */
export async function collectionOptions(
  client: ServiceClient,
  currencies?: readonly string[],
): Promise<CollectionOptions> {
  const asked = [...new Set(currencies ?? (await client.getBalances()).map((b) => b.currency))];
  const out: CollectionOptions = { options: [], read: [], unread: [] };
  // All at once: a run in flight is waited for when the desk stops (within 1.5 s), and a round trip per
  // currency one after another could take longer than that on a busy machine. A handful of requests.
  const answers = await Promise.allSettled(
    asked.map((currency) => client.getPaymentOptions({ currency, transactionType: 'COLLECTION' })),
  );
  answers.forEach((a, i) => {
    const currency = asked[i]!;
    if (a.status === 'fulfilled') {
      out.options.push(...a.value);
      out.read.push(currency);
    } else if (isServiceError(a.reason)) out.unread.push({ currency, error: a.reason });
    else throw a.reason;
  });
  return out;
}

/** "the payment options for KES could not be read: <why>; ... (UGX and USD were read)". */
export function unreadOptionsText(r: CollectionOptions): string {
  const each = r.unread.map((u) => `the payment options for ${u.currency} could not be read: ${u.error.message}`);
  const read = r.read.length === 0 ? '' : ` (${listText(r.read)} ${r.read.length === 1 ? 'was' : 'were'} read)`;
  return each.join('; ') + read;
}

function listText(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
