// A card object for the card cipher, made the only way the app makes one: the form's card rules
// (parseCard), then the mapping to the service's fields (toCardData). Throws on a card the form refuses.
import { english } from '../../main/words/words.shared.js';
import { parseCard, type CardFields } from '../../main/collections/card-input.shared.js';
import { toCardData } from '../../main/collections/charge/card-data.js';
import type { ValidCardData } from '../../main/service/card-cipher.js';
import type { CardData } from '../../main/service/types.js';

export function validCardData(c: CardData, now = Date.now()): ValidCardData {
  const fields: CardFields = {
    number: c.card_no,
    expMonth: c.exp_month,
    expYear: c.exp_year,
    cvv: c.cvv,
    firstName: c.first_name,
    lastName: c.last_name,
    ...(c.pin !== undefined ? { pin: c.pin } : {}),
    ...(c.billing_address !== undefined ? { billingAddress: c.billing_address } : {}),
    ...(c.billing_city !== undefined ? { billingCity: c.billing_city } : {}),
    ...(c.billing_zip !== undefined ? { billingZip: c.billing_zip } : {}),
    ...(c.billing_state !== undefined ? { billingState: c.billing_state } : {}),
    ...(c.billing_country !== undefined ? { billingCountry: c.billing_country } : {}),
  };
  const r = parseCard(fields, now);
  if (!r.ok) throw new Error(`the card rules refuse this card: ${Object.values(r.errors).map(english).join('; ')}`);
  return toCardData(r.value);
}
