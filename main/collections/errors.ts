// Errors of the payments back end that the user should see as they are. `expose: true` lets the IPC
// dispatcher pass kind/field/fields through (main/ipc/dispatch.ts). Messages never contain card data.
export class PaymentError extends Error {
  readonly expose = true;
  constructor(
    readonly kind: 'validation' | 'not_configured' | 'not_found' | 'conflict' | 'expired',
    message: string,
    readonly field?: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
    this.name = 'PaymentError';
  }
}

/** Several form fields are wrong; `fields` maps each to its message, `field` is the first. */
export function fieldErrors(fields: Record<string, string>): PaymentError {
  const [first, msg] = Object.entries(fields)[0] ?? ['form', 'the form is not valid'];
  const n = Object.keys(fields).length;
  return new PaymentError('validation', n > 1 ? `${msg} (and ${n - 1} more)` : msg, first, fields);
}
