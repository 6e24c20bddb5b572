// The store's one error: a database the app cannot use as it is (a newer schema, a stored value of the
// wrong type). Its own module so both stores (sqlite/, pg/) and the row readers (columns.ts) throw it.
import { DeskError } from '../errors.shared.js';

export class StoreError extends DeskError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super('store', message, opts);
  }
}
