// Errors the user can act on; IPC dispatch shows them as they are (expose + kind + field).
export class ReconcileError extends Error {
  readonly expose = true;
  constructor(
    readonly kind: 'validation' | 'not_found' | 'conflict' | 'cancelled',
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ReconcileError';
  }
}
