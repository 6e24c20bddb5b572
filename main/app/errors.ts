// Errors a handler throws on purpose, to be shown to the user as they are. Anything else that escapes
// a handler is reported over IPC as 'internal' with a generic message (the detail goes to the log).
// Every capability's errors share one base, DeskError (main/errors.shared.ts); this is the general one.
import { DeskError } from '../errors.shared.js';
import type { Words } from '../words/words.shared.js';

export type AppErrorKind =
  | 'validation' // the request or a value in it is wrong; `field` names it
  | 'not_configured' // the service connection is not set up (keys, base URL)
  | 'keychain_unavailable' // the OS keychain cannot be used
  | 'not_found'
  | 'conflict'
  | 'cancelled'
  | 'unsupported';

export class AppError extends DeskError {
  declare readonly kind: AppErrorKind | (string & {});
  declare readonly expose: true;
  constructor(
    kind: AppErrorKind | (string & {}),
    message: string | Words,
    opts: { field?: string; fields?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(kind, message, { ...opts, expose: true });
  }
}
