// Errors a handler throws on purpose, to be shown to the user as they are. Anything else that escapes
// a handler is reported over IPC as 'internal' with a generic message (the detail goes to the log).
//
// Other capabilities may keep their own error classes: dispatch also shows any Error that carries
// `expose: true` and a string `kind` (and optionally `field` / `fields`), without importing this file.

export type AppErrorKind =
  | 'validation' // the request or a value in it is wrong; `field` names it
  | 'not_configured' // the service connection is not set up (keys, base URL)
  | 'keychain_unavailable' // the OS keychain cannot be used
  | 'not_found'
  | 'conflict'
  | 'cancelled'
  | 'unsupported';

export class AppError extends Error {
  readonly expose = true;
  readonly field: string | undefined;
  readonly fields: Record<string, string> | undefined;
  constructor(
    readonly kind: AppErrorKind | (string & {}),
    message: string,
    opts: { field?: string; fields?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.field = opts.field;
    this.fields = opts.fields;
  }
}
