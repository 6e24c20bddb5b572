// Errors the user can act on; IPC dispatch shows them as they are (expose + kind + field).
import { DeskError } from '../errors.shared.js';
import type { Words } from '../words/words.shared.js';

export class ReconcileError extends DeskError {
  declare readonly kind: 'validation' | 'not_found' | 'conflict' | 'cancelled';
  declare readonly expose: true;
  constructor(kind: ReconcileError['kind'], message: string | Words, field?: string) {
    super(kind, message, { field, expose: true });
  }
}
