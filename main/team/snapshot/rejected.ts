import { TeamError } from '../errors.js';

/** A snapshot a desk will not use, and why (the desk then replays the events instead). */
export class SnapshotRejectedError extends TeamError {
  override name = 'SnapshotRejectedError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the team snapshot was not used: ${reason}`, undefined, options);
  }
}
