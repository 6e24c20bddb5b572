// The card as the form has it -> the card object the service encrypts, and back for field names.
// Card data lives only in the objects passed here; every one is overwritten as soon as the cipher is
// built (the cipher's plaintext Buffer is zeroed by buildCardCipher).
import type { CardData } from '../../service/types.js';
import { nest, words } from '../../words/words.shared.js';
import { buildCardCipher, type ValidCardData } from '../../service/card-cipher.js';
import { CardDataError, ServiceKeyError } from '../../service/errors.js';
import { PaymentError } from '../errors.js';
import type { CardFields, ValidCard } from '../card-input.shared.js';
import { digitsOnly } from '../card-number.shared.js';

/** Overwrites every string field of a card object (strings cannot be zeroed; drop the references). */
export function wipeCard(card: object | null | undefined): void {
  if (!card) return;
  const c = card as Record<string, unknown>;
  for (const k of Object.keys(c)) if (typeof c[k] === 'string') c[k] = '';
}

/**
 * The service's card fields from a validated card: trimmed, digits only, 4-digit year, optional fields
 * left out when empty. The only maker of a ValidCardData, the one thing the card cipher takes.
 */
export function toCardData(c: ValidCard): ValidCardData {
  const year = c.expYear.trim();
  const data: CardData = {
    first_name: c.firstName.trim(),
    last_name: c.lastName.trim(),
    card_no: digitsOnly(c.number),
    exp_month: c.expMonth.trim().padStart(2, '0'),
    exp_year: year.length === 2 ? '20' + year : year,
    cvv: c.cvv.trim(),
  };
  const opt: [keyof CardFields, keyof CardData][] = [
    ['billingAddress', 'billing_address'],
    ['billingCity', 'billing_city'],
    ['billingZip', 'billing_zip'],
    ['billingState', 'billing_state'],
  ];
  for (const [from, to] of opt) {
    const v = (c[from] as string | undefined)?.trim();
    if (v) (data as unknown as Record<string, string>)[to] = v;
  }
  const country = c.billingCountry?.trim().toUpperCase();
  if (country) data.billing_country = country;
  if (c.pin?.trim()) data.pin = c.pin.trim();
  return data as ValidCardData;
}

const CARD_FIELD_MAP: Record<string, string> = {
  first_name: 'card.firstName',
  last_name: 'card.lastName',
  card_no: 'card.number',
  exp_month: 'card.expMonth',
  exp_year: 'card.expYear',
  cvv: 'card.cvv',
  billing_address: 'card.billingAddress',
  billing_city: 'card.billingCity',
  billing_zip: 'card.billingZip',
  billing_state: 'card.billingState',
  billing_country: 'card.billingCountry',
  pin: 'card.pin',
  description: 'description',
  amount: 'amount',
  currency: 'currency',
  customer_name: 'customerName',
  customer_email: 'customerEmail',
};

/** A service or cipher field name ("card_cipher.cvv", "description") as the form names it. */
export function formField(serviceField: string | undefined): string | undefined {
  if (!serviceField) return undefined;
  const f = serviceField.replace(/^card_cipher\./, '');
  return CARD_FIELD_MAP[f] ?? serviceField;
}

/**
 * Encrypts a validated card under the service public key. A card the key cannot hold (too long for one
 * RSA block) comes back as a form field error; a bad key as not_configured. The service card object is
 * wiped whatever happens.
 */
export function cipherFor(card: ValidCard, pem: string): string {
  const data = toCardData(card);
  try {
    return buildCardCipher(data, pem);
  } catch (e) {
    if (e instanceof CardDataError) {
      const f = formField(e.field) ?? 'card';
      // The sizes and field names of the service's own card object: said as they are.
      const w = words('errors.asIs', { text: e.message });
      throw new PaymentError('validation', w, f, { [f]: w });
    }
    if (e instanceof ServiceKeyError)
      throw new PaymentError('not_configured', words('payment.serviceKey', nest('problem', e.words, e.message)));
    throw e;
  } finally {
    wipeCard(data);
  }
}
