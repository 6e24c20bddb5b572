// The one error family of main (shared: it imports nothing, so money rules the renderer bundles may use it). Every capability's error class is a thin subclass of DeskError, so
// that one mapper (main/ipc/dispatch.ts toIpcError) turns any of them into what the renderer sees,
// without knowing each class. This module imports nothing, so every layer (money, store, service,
// settings, collections, app) may import it without an arrow pointing back up.
//
// `expose` says whether the message is written for the user and safe to show as it is (no card data,
// keys or paths of others). An error that is not exposed is reported as 'internal' with a generic
// message; its detail goes to the log only.

export interface DeskErrorOptions {
  /** The input field at fault (form fields and settings paths are named the same as over IPC). */
  field?: string | undefined;
  /** Per-field messages for a form with several wrong fields. */
  fields?: Record<string, string> | undefined;
  /** True when the message may be shown to the user as it is. Default false. */
  expose?: boolean;
  cause?: unknown;
}

export class DeskError extends Error {
  /** Stable and safe to show, e.g. 'validation', 'not_found', 'keychain_unavailable', 'network'. */
  readonly kind: string;
  readonly field: string | undefined;
  readonly fields: Record<string, string> | undefined;
  readonly expose: boolean;
  constructor(kind: string, message: string, opts: DeskErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    // The class's own name ('SettingsError', 'MoneyError', ...): logs and the poller go by it.
    this.name = new.target.name;
    this.kind = kind;
    this.field = opts.field;
    this.fields = opts.fields;
    this.expose = opts.expose ?? false;
  }
}
