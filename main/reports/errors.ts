// Errors the user can act on; IPC dispatch shows them as they are (expose + kind + field).
export class ReportError extends Error {
  readonly expose = true;
  constructor(
    readonly kind: 'validation' | 'cancelled' | 'io' | 'internal',
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ReportError';
  }
}
