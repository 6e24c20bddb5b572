// Errors of the payments back end that the user should see as they are: exposed, so the IPC
// dispatcher passes kind/field/fields through (main/ipc/dispatch.ts). Messages never contain card data.
import { DeskError } from '../errors.shared.js';

export class PaymentError extends DeskError {
  declare readonly kind:
    'validation' | 'not_configured' | 'not_found' | 'conflict' | 'expired' | 'forbidden' | 'unavailable';
  declare readonly expose: true;
  constructor(kind: PaymentError['kind'], message: string, field?: string, fields?: Record<string, string>) {
    super(kind, message, { field, fields, expose: true });
  }
}

/** Several form fields are wrong; `fields` maps each to its message, `field` is the first. */
export function fieldErrors(fields: Record<string, string>): PaymentError {
  const [first, msg] = Object.entries(fields)[0] ?? ['form', 'the form is not valid'];
  const n = Object.keys(fields).length;
  return new PaymentError('validation', n > 1 ? `${msg} (and ${n - 1} more)` : msg, first, fields);
}
