// Errors of the payments back end that the user should see as they are: exposed, so the IPC
// dispatcher passes kind/field/fields through (main/ipc/dispatch.ts). Messages never contain card data.
import { DeskError } from '../errors.shared.js';
import { english, nest, words, type Words } from '../words/words.shared.js';

export class PaymentError extends DeskError {
  declare readonly kind:
    'validation' | 'not_configured' | 'not_found' | 'conflict' | 'expired' | 'forbidden' | 'unavailable';
  declare readonly expose: true;
  constructor(kind: PaymentError['kind'], message: string | Words, field?: string, fields?: Record<string, Words>) {
    super(kind, message, { field, fieldWords: fields, expose: true });
  }
}

/** Several form fields are wrong; `fields` maps each to its problem, `field` is the first. */
export function fieldErrors(fields: Record<string, Words>): PaymentError {
  const [first, w] = Object.entries(fields)[0] ?? ['form', words('payment.err.invalid', { field: 'form' })];
  const n = Object.keys(fields).length;
  return new PaymentError(
    'validation',
    n > 1 ? words('payment.err.andMore', { ...nest('first', w, english(w)), more: n - 1 }) : w,
    first,
    fields,
  );
}
