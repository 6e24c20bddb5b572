// Errors the user can act on; IPC dispatch shows them as they are (expose + kind + field).
import { DeskError } from '../errors.shared.js';

export class ReportError extends DeskError {
  declare readonly kind: 'validation' | 'cancelled' | 'io' | 'internal';
  declare readonly expose: true;
  constructor(kind: ReportError['kind'], message: string, field?: string) {
    super(kind, message, { field, expose: true });
  }
}
